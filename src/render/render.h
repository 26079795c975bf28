/* Output: text for people, JSON for programs. Knows the facts and plan
 * models and nothing that writes to the host. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "context.h"
#include "facts.h"

/* Whether to colour output written to fd under the context's --color. */
bool ht_use_color(const ht_context *c, int fd);

/* Print a top-level JSON document (pretty, two-space indent, slashes
 * unescaped); an object gets "schema_version" (HT_JSON_SCHEMA_VERSION) as
 * its first key. */
void ht_print_json(FILE *out, json_object *o);
/* Whether ht_print_json has printed a document in this process. */
bool ht_json_document_printed(void);

/* Print a JSON tree as aligned "dotted.key  value" lines, the text form
 * of facts: nested objects become dotted names, scalar arrays are joined
 * with ", ", arrays of objects are numbered. null prints as "unknown". */
void ht_print_flat(FILE *out, json_object *o, const char *skip_key);

#include "plan.h"

/* The plan as JSON: profile, changed, reboot_required, offline,
 * changes[], files[] (path, diff), actions[], warnings[], errors[]. */
json_object *ht_plan_to_json(const ht_plan *p);
/* The plan as a reviewer reads it: a summary, then per backend the runtime
 * changes and a unified diff of every file; quiet leaves out the skipped
 * optional settings. */
void ht_print_plan(FILE *out, const ht_plan *p, bool color, bool quiet);
