#!/bin/sh
# The part of the official image's entry point docker-compose.yml relies on: with
# NGINX_ENTRYPOINT_LOCAL_RESOLVERS set, ${NGINX_LOCAL_RESOLVERS} is the container's DNS servers, and
# /etc/nginx/templates/X.template becomes /etc/nginx/conf.d/X with it filled in.
set -eu
if [ -n "${NGINX_ENTRYPOINT_LOCAL_RESOLVERS:-}" ]; then
  NGINX_LOCAL_RESOLVERS=$(awk '/^nameserver/ { print ($2 ~ ":") ? "[" $2 "]" : $2 }' /etc/resolv.conf | xargs)
fi
for template in /etc/nginx/templates/*.template; do
  [ -e "$template" ] || continue
  sed "s|\${NGINX_LOCAL_RESOLVERS}|${NGINX_LOCAL_RESOLVERS:-}|g" "$template" \
    >"/etc/nginx/conf.d/$(basename "$template" .template)"
done
exec "$@"
