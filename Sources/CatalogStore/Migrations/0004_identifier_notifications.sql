-- Every server keeps the product-identifier list of each app in memory and rebuilds an app's list when
-- PostgreSQL notifies it. A notification is sent in the transaction that makes the change, so it arrives
-- (at every listening server) exactly when the change is committed, and only for changes that alter a list:
-- a product going on or off sale, a new app (whose list turns from 404 into an empty list).
-- PostgreSQL folds identical notifications of one transaction into one, so a bulk change notifies once.

CREATE FUNCTION notify_product_identifiers() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'apps' THEN
        PERFORM pg_notify('product_identifiers', NEW.bundle_id);
    ELSIF TG_OP = 'INSERT' THEN
        IF NEW.on_sale THEN PERFORM pg_notify('product_identifiers', NEW.app); END IF;
    ELSIF TG_OP = 'DELETE' THEN
        IF OLD.on_sale THEN PERFORM pg_notify('product_identifiers', OLD.app); END IF;
    ELSIF OLD.on_sale IS DISTINCT FROM NEW.on_sale THEN
        PERFORM pg_notify('product_identifiers', NEW.app);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER apps_notify_product_identifiers AFTER INSERT ON apps
    FOR EACH ROW EXECUTE FUNCTION notify_product_identifiers();
CREATE TRIGGER products_notify_product_identifiers AFTER INSERT OR UPDATE OR DELETE ON products
    FOR EACH ROW EXECUTE FUNCTION notify_product_identifiers();
