-- An event's list of changes written to its canonical text in one pass, without a function call per change (issue
-- 22; docs/performance.md, "The canonical text of a list of changes").
--
-- 0028 wrote each change object of a list without sorting its keys, but the list itself still went through
-- 0006's version, which called iap_canonical_json once per element: with the checks of the object's shape, about
-- 28 µs for a recorded transaction's twelve changes. With every list written as `[]` instead (an upper bound, the
-- hashes then wrong), the benchmark's signed transactions cost PostgreSQL 50 to 90 µs less each.
--
-- A list of up to 100 elements is now written as if every element were a change object with scalar values, each
-- `{"field":…,"new":…,"old":…}` with the members it has, each value as jsonb writes it; then the text is kept
-- only if it is that list's canonical text, which two tests decide:
--   * it reads back as the same value (`written::jsonb = value`): an element that is not an object is written as
--     `{}`, another key of an object is left out, and either reads back different;
--   * no value written after one of the three keys is an object or an array (the text has no `":{` or `":[`:
--     in a string a quote is always escaped, so such a string only sends the list to the slow path).
-- A text that passes is canonical: its objects are the template's (keys in code point order, no whitespace), its
-- scalars are jsonb's own text of them, which is what 0001 writes for a scalar. Any other list, and a list of
-- more than 100 elements (the text grows by a copy per element), goes to 0006's version as before. The object
-- case is 0028's. HistoryChainTests compares the result with 0001's version for lists of changes, lists just
-- outside that shape and random JSON.
CREATE OR REPLACE FUNCTION iap_canonical_json(value jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    item jsonb;
    written text := '';
BEGIN
    IF jsonb_typeof(value) = 'array' THEN
        IF jsonb_array_length(value) BETWEEN 1 AND 100 THEN
            FOR i IN 0 .. jsonb_array_length(value) - 1 LOOP
                item := value -> i;
                written := written || ',{' || concat_ws(',', '"field":' || (item -> 'field')::text,
                                                        '"new":' || (item -> 'new')::text,
                                                        '"old":' || (item -> 'old')::text) || '}';
            END LOOP;
            written := '[' || substr(written, 2) || ']';
            IF strpos(written, '":{') = 0 AND strpos(written, '":[') = 0 AND written::jsonb = value THEN
                RETURN written;
            END IF;
        END IF;
    ELSIF jsonb_typeof(value) = 'object' AND value - '{field,new,old}'::text[] = '{}'::jsonb
       AND coalesce(jsonb_typeof(value -> 'field'), 'null') NOT IN ('object', 'array')
       AND coalesce(jsonb_typeof(value -> 'new'), 'null') NOT IN ('object', 'array')
       AND coalesce(jsonb_typeof(value -> 'old'), 'null') NOT IN ('object', 'array') THEN
        RETURN '{' || concat_ws(',', '"field":' || (value -> 'field')::text, '"new":' || (value -> 'new')::text,
                                '"old":' || (value -> 'old')::text) || '}';
    END IF;
    RETURN iap_canonical_json_sorting_keys(value);
END
$$;
