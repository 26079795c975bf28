/* Desired settings to and from JSON: apply stores them in the journal so
 * verify checks the host against exactly what was applied, not against a
 * profile that may have changed since. */
#pragma once

#include <json-c/json.h>

#include "profile.h"

json_object *ht_settings_to_json(const ht_resolved *r);
/* A resolved profile holding only name and settings. -EBADMSG on a
 * malformed array. */
int ht_settings_from_json(json_object *a, const char *profile, ht_resolved **ret);
