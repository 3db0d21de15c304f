// The server side of the IAP Catalog API, generated at build time from `openapi.yaml` (a link to CatalogAPI's
// document, the one the client is generated from too, so that the two cannot drift apart):
// `registerHandlers(on:serverURL:configuration:middlewares:)` for any `APIProtocol`, which routes each
// operation to its method. Nothing hand-written lives here: CatalogServer's `CatalogAPIHandler` implements
// `APIProtocol`, and CatalogServer is all hand-written, so that it builds under the strict settings without a
// warning.
import CatalogAPI
