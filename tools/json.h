/* SPDX-License-Identifier: Apache-2.0 */
/* A JSON writer for tapdpctl --json: objects, arrays, strings (escaped as
 * RFC 8259 asks) and unsigned numbers, written to a stdio stream as they
 * come, one document per line. A key is given inside an object and NULL
 * inside an array or at the top. Not thread-safe: one writer per stream. */
#ifndef TAPDP_JSON_H
#define TAPDP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json {
	FILE *f;
	int depth;
	bool has_item[JSON_MAX_DEPTH];	/* a comma before the next item */
};

void json_init(struct json *j, FILE *f);
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_string(struct json *j, const char *key, const char *s);
void json_uint(struct json *j, const char *key, uint64_t v);
void json_bool(struct json *j, const char *key, bool v);

#endif
