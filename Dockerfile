# Bourse: one small image, run as a non-root user, data on a volume.
# The base images, pinned by digest (the tag says which line each follows; move both together). A
# machine that cannot pull them passes stand-ins (deploy/smoke does, with deploy/images/build's).
ARG NODE_IMAGE=node:20-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0
ARG PYTHON_IMAGE=python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7
FROM ${NODE_IMAGE} AS frontend
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error

# The app as a wheel: the translation catalogues compiled (.po to .mo) with Babel, which only this
# stage has, then packed, with the .mo files and without the .po, by setuptools (both the lock's
# versions, hash-checked).
FROM ${PYTHON_IMAGE} AS wheel
WORKDIR /build
COPY requirements/dev.txt ./requirements/dev.txt
RUN awk '!/^ /{keep = /^(babel|setuptools)==/} keep' requirements/dev.txt >build.txt \
 && pip install --no-cache-dir --disable-pip-version-check --root-user-action=ignore \
      --require-hashes -r build.txt
COPY scripts/lib/compile_catalogues.py ./scripts/lib/
COPY pyproject.toml ./
COPY app ./app
RUN python scripts/lib/compile_catalogues.py /build && find app -name '*.po' -delete \
 && pip wheel --no-cache-dir --disable-pip-version-check --no-deps --no-build-isolation \
      --wheel-dir /build/dist .

FROM ${PYTHON_IMAGE}
# MALLOC_ARENA_MAX=2: glibc gives each worker thread (renders run in a pool of them) an arena of its own,
# and the regions' HTML freed there fragments them; two arenas kept RSS ~10% lower (BENCHMARKS.md, issue 18).
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 PORT=8000 \
    BOURSE_DATABASE_URL=sqlite:////data/bourse.db
WORKDIR /app
# Exactly the pinned, hash-checked runtime set (no test tools; the PostgreSQL and Redis drivers are in
# it, so one image serves one process on SQLite or several on PostgreSQL + Redis, docker-compose.yml's
# `scale` profile); its own layer, rebuilt only when the lock changes. requirements/runtime.txt is made by scripts/lock for this image's Python 3.11 on x86_64.
COPY requirements/runtime.txt ./requirements/runtime.txt
RUN pip install --no-cache-dir --disable-pip-version-check --root-user-action=ignore \
      --require-hashes -r requirements/runtime.txt
# The app itself, installed from its wheel (not editable, nothing built here) into /app, beside its
# templates, static files and migrations, which it finds next to its package; its dependencies all
# came from the lock above.
COPY --from=wheel /build/dist /tmp/dist
RUN pip install --no-cache-dir --disable-pip-version-check --root-user-action=ignore \
      --no-deps --no-index --target /app /tmp/dist/*.whl \
 && rm -rf /tmp/dist
ENV PYTHONPATH=/app
COPY alembic.ini ./
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
COPY --from=frontend /build/node_modules/htmx.org/dist ./node_modules/htmx.org/dist
COPY --from=frontend /build/node_modules/htmx-ext-ws/dist ./node_modules/htmx-ext-ws/dist
COPY --from=frontend /build/node_modules/idiomorph/dist ./node_modules/idiomorph/dist
COPY --from=frontend /build/node_modules/swagger-ui-dist ./node_modules/swagger-ui-dist
RUN useradd --system --uid 10001 --home /app bourse && mkdir /data && chown bourse /data
USER bourse
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ[\"PORT\"]}/healthz', timeout=4)"
CMD ["python", "-m", "app"]
