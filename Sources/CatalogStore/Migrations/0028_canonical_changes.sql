-- An event's changes are written to its canonical text without sorting their keys (issue 22: the history is about
-- a third of what PostgreSQL does per verified receipt, and the canonical text of a transaction's eleven changes a
-- third of that; docs/performance.md, "Receipts: verified outcomes a statement per step").
--
-- Most of an event's changes are objects of the keys "field", "new" and "old" with scalar values. Their canonical
-- text is those keys in code point order, which is that order, each with its value as jsonb writes it: the text
-- 0006's version writes, without the path query and the insertion sort it runs for every object. 0006's version
-- stays, under another name, for every other value; its recursion calls iap_canonical_json by name, so the values
-- nested in an array or object come back here first. HistoryChainTests checks the result against 0001's version,
-- changes-shaped values among others.
ALTER FUNCTION iap_canonical_json(jsonb) RENAME TO iap_canonical_json_sorting_keys;

CREATE FUNCTION iap_canonical_json(value jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF jsonb_typeof(value) = 'object' AND value - '{field,new,old}'::text[] = '{}'::jsonb
       AND coalesce(jsonb_typeof(value -> 'field'), 'null') NOT IN ('object', 'array')
       AND coalesce(jsonb_typeof(value -> 'new'), 'null') NOT IN ('object', 'array')
       AND coalesce(jsonb_typeof(value -> 'old'), 'null') NOT IN ('object', 'array') THEN
        RETURN '{' || concat_ws(',', '"field":' || (value -> 'field')::text, '"new":' || (value -> 'new')::text,
                                '"old":' || (value -> 'old')::text) || '}';
    END IF;
    RETURN iap_canonical_json_sorting_keys(value);
END
$$;
