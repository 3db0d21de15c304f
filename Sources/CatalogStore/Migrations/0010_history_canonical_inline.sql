-- iap_json_text was declared IMMUTABLE over to_json, which is STABLE: PostgreSQL inlines a SQL function only
-- when its body is no more volatile than its declaration, so it never inlined this one, and every event ran it
-- thirteen times as a SQL function of its own, each time parsed and planned again: about a seventh of the
-- database's work for an action (docs/performance.md). Declared STABLE, it is inlined into history_canonical,
-- itself inlined into history_link's hash. The text it returns is unchanged.
ALTER FUNCTION iap_json_text(text) STABLE;
