import CatalogServer
print("hi")
