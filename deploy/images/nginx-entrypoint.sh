#!/bin/sh
# The part of the official image's entry point docker-compose.yml relies on: with
# NGINX_ENTRYPOINT_LOCAL_RESOLVERS set, ${NGINX_LOCAL_RESOLVERS} is the container's DNS servers, and
# /etc/nginx/templates/X.template becomes /etc/nginx/conf.d/X with it and ${BOURSE_TRUSTED_PROXY} (set by
# docker-compose.yml; the official image fills in every variable of its environment) filled in.
set -eu
if [ -n "${NGINX_ENTRYPOINT_LOCAL_RESOLVERS:-}" ]; then
  NGINX_LOCAL_RESOLVERS=$(awk '/^nameserver/ { print ($2 ~ ":") ? "[" $2 "]" : $2 }' /etc/resolv.conf | xargs)
fi
for template in /etc/nginx/templates/*.template; do
  [ -e "$template" ] || continue
  sed -e "s|\${NGINX_LOCAL_RESOLVERS}|${NGINX_LOCAL_RESOLVERS:-}|g" \
    -e "s|\${BOURSE_TRUSTED_PROXY}|${BOURSE_TRUSTED_PROXY:-}|g" "$template" \
    >"/etc/nginx/conf.d/$(basename "$template" .template)"
done
exec "$@"
