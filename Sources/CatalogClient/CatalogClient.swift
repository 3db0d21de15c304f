// The typed HTTP client of the IAP Catalog API, generated at build time from `openapi.yaml` (a link to
// CatalogAPI's document, the one the server's handlers are generated from, so that the two cannot drift
// apart). `Client(serverURL:configuration:transport:middlewares:)` has one method per `operationId`; the
// request and response types live in CatalogAPI. Nothing hand-written lives here: the CLI's conveniences
// (transport, authentication, body capture) are in iap-admin.
import CatalogAPI
