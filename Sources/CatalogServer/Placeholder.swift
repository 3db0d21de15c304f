import CatalogAPI
enum ServerPlaceholder {}
