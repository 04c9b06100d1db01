/*
 * json.c - pmutil.h's helpers over jansson.
 */
#include <jansson.h>

#include "pmutil.h"

const char *pmu_str(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}
