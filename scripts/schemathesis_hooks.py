"""schemathesis hooks for scripts/schemathesis (loaded through SCHEMATHESIS_HOOKS).

The run authenticates every request with one admin key. Its id is in answers the fuzzer reads (`GET /v1/me`,
`GET /v1/keys`) and may be fed back into `DELETE /v1/keys/{keyId}`: revoking it would answer every later
request 401 and end the run's usefulness, not find a bug. Such a request is sent for the spare key instead.
"""

import os

import schemathesis

ADMIN_KEY_ID = os.environ.get("IAP_FUZZ_ADMIN_KEY_ID", "").lower()
SPARE_KEY_ID = os.environ.get("IAP_FUZZ_SPARE_KEY_ID", "")


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.operation.path != "/v1/keys/{keyId}" or not ADMIN_KEY_ID:
        return
    key_id = (case.path_parameters or {}).get("keyId")
    if isinstance(key_id, str) and key_id.lower() == ADMIN_KEY_ID:
        case.path_parameters["keyId"] = SPARE_KEY_ID
