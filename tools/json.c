/* SPDX-License-Identifier: Apache-2.0 */
#include "tools/json.h"

void
json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->has_item[0] = false;
}

static void
put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The comma and key in front of an item. */
static void
item(struct json *j, const char *key)
{
	if (j->has_item[j->depth])
		fputc(',', j->f);
	j->has_item[j->depth] = true;
	if (key) {
		put_string(j->f, key);
		fputc(':', j->f);
	}
}

static void
container_open(struct json *j, const char *key, char c)
{
	item(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->has_item[j->depth] = false;
}

static void
container_close(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
	/* A document ends its line; the next one begins afresh. */
	if (!j->depth) {
		fputc('\n', j->f);
		j->has_item[0] = false;
	}
}

void
json_object_begin(struct json *j, const char *key)
{
	container_open(j, key, '{');
}

void
json_object_end(struct json *j)
{
	container_close(j, '}');
}

void
json_array_begin(struct json *j, const char *key)
{
	container_open(j, key, '[');
}

void
json_array_end(struct json *j)
{
	container_close(j, ']');
}

void
json_string(struct json *j, const char *key, const char *s)
{
	item(j, key);
	put_string(j->f, s);
}

void
json_uint(struct json *j, const char *key, uint64_t v)
{
	item(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void
json_bool(struct json *j, const char *key, bool v)
{
	item(j, key);
	fputs(v ? "true" : "false", j->f);
}
