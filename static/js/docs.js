// The API docs: Swagger UI from our own origin (node_modules), started here rather than by an inline
// script, so the page keeps the strict Content-Security-Policy every page has.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("swagger-ui");
    window.SwaggerUIBundle({
      url: root.getAttribute("data-openapi-url"),
      dom_id: "#swagger-ui",
      deepLinking: true,
      tryItOutEnabled: false
    });
  });
})();
