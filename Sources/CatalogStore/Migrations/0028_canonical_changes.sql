-- An event's changes are written to its canonical text without sorting their keys (issue 22: the history is about
-- a third of what PostgreSQL does per verified receipt or signed transaction, and the canonical text of a
-- transaction's eleven changes a third of that; docs/performance.md, "Receipts: verified outcomes a statement per
-- step").
--
-- Most of an event's changes are objects of the keys "field", "new" and "old" with scalar values. Their canonical
-- text is those keys in code point order, which is that order, each with its value as jsonb writes it: the text
-- 0006's version writes, without the path query and the insertion sort it runs for every object. Any other object
-- is written as 0006 wrote it. HistoryChainTests checks the result against 0001's version, changes-shaped values
-- among others.
CREATE OR REPLACE FUNCTION iap_canonical_json(value jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    keys text[];
    key_list jsonb;
    next_key text;
    item jsonb;
    result text := '';
    j integer;
BEGIN
    CASE jsonb_typeof(value)
    WHEN 'array' THEN
        FOR i IN 0 .. jsonb_array_length(value) - 1 LOOP
            item := value -> i;
            IF i > 0 THEN
                result := result || ',';
            END IF;
            IF jsonb_typeof(item) IN ('object', 'array') THEN
                result := result || iap_canonical_json(item);
            ELSE
                result := result || item::text;
            END IF;
        END LOOP;
        RETURN '[' || result || ']';
    WHEN 'object' THEN
        IF value - '{field,new,old}'::text[] = '{}'::jsonb
           AND coalesce(jsonb_typeof(value -> 'field'), 'null') NOT IN ('object', 'array')
           AND coalesce(jsonb_typeof(value -> 'new'), 'null') NOT IN ('object', 'array')
           AND coalesce(jsonb_typeof(value -> 'old'), 'null') NOT IN ('object', 'array') THEN
            RETURN '{' || concat_ws(',', '"field":' || (value -> 'field')::text, '"new":' || (value -> 'new')::text,
                                    '"old":' || (value -> 'old')::text) || '}';
        END IF;
        key_list := jsonb_path_query_array(value, '$.keyvalue().key');
        IF jsonb_array_length(key_list) > 32 THEN
            keys := ARRAY(SELECT k FROM jsonb_object_keys(value) AS k ORDER BY k COLLATE "C");
        ELSE
            keys := '{}';
            FOR i IN 1 .. jsonb_array_length(key_list) LOOP
                next_key := key_list ->> (i - 1);
                j := i - 1;
                WHILE j > 0 AND keys[j] COLLATE "C" > next_key COLLATE "C" LOOP
                    keys[j + 1] := keys[j];
                    j := j - 1;
                END LOOP;
                keys[j + 1] := next_key;
            END LOOP;
        END IF;
        FOR i IN 1 .. coalesce(array_length(keys, 1), 0) LOOP
            item := value -> keys[i];
            IF i > 1 THEN
                result := result || ',';
            END IF;
            result := result || to_json(keys[i])::text || ':';
            IF jsonb_typeof(item) IN ('object', 'array') THEN
                result := result || iap_canonical_json(item);
            ELSE
                result := result || item::text;
            END IF;
        END LOOP;
        RETURN '{' || result || '}';
    ELSE
        -- A string as jsonb writes it is to_json's escaping, 0001's; null, numbers and booleans as they are.
        RETURN value::text;
    END CASE;
END
$$;
