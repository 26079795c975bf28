/* Desired settings to and from JSON: apply stores them in the journal so
 * verify checks the host against exactly what was applied, not against a
 * profile that may have changed since. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#include "profile.h"

/* One setting as JSON, the one serialisation of ht_setting. full: every
 * field in profile show --json's order (value and citation null when
 * absent, optional and bound always, remove where the backend has it);
 * else the journal's sparse form (absent fields and false flags left
 * out, bound only when not exact). */
json_object *ht_setting_to_json(const ht_setting *s, bool full);
json_object *ht_settings_to_json(const ht_resolved *r);
/* A resolved profile holding only name and settings. -EBADMSG on a
 * malformed array. */
int ht_settings_from_json(json_object *a, const char *profile, ht_resolved **ret);
