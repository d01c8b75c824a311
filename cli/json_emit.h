/* Table-driven JSON objects: an emitter lists an object's keys once, in output order, with their
 * values, instead of one cJSON_Add* call a key; the JSON is the same (cJSON numbers, strings,
 * booleans and nulls, in the order of the table).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_JSON_EMIT_H
#define RIDGE_CLI_JSON_EMIT_H

#include <stddef.h>

#include <cjson/cJSON.h>

typedef enum {
    CLI_JSON_OMIT = 0, /* the key is left out (an optional key whose condition does not hold) */
    CLI_JSON_NUMBER,
    CLI_JSON_STRING,
    CLI_JSON_BOOL,
    CLI_JSON_NULL,
} cli_json_kind;

typedef struct {
    const char *key;
    cli_json_kind kind;
    double num;      /* NUMBER, BOOL (0 or 1) */
    const char *str; /* STRING */
} cli_json_field;

#define CLI_JNUM(k, v) {(k), CLI_JSON_NUMBER, (double)(v), NULL}
#define CLI_JSTR(k, s) {(k), CLI_JSON_STRING, 0, (s)}
#define CLI_JBOOL(k, b) {(k), CLI_JSON_BOOL, (b) ? 1 : 0, NULL}
/* A number where cond holds, else null. */
#define CLI_JNUM_OR_NULL(k, cond, v) {(k), (cond) ? CLI_JSON_NUMBER : CLI_JSON_NULL, (cond) ? (double)(v) : 0, NULL}
/* A number or a string where cond holds, else no key. */
#define CLI_JNUM_IF(k, cond, v) {(k), (cond) ? CLI_JSON_NUMBER : CLI_JSON_OMIT, (cond) ? (double)(v) : 0, NULL}
#define CLI_JSTR_IF(k, cond, s) {(k), (cond) ? CLI_JSON_STRING : CLI_JSON_OMIT, 0, (s)}

/* Add the n fields to the object o, in order; returns o. */
cJSON *cli_json_add(cJSON *o, const cli_json_field *f, size_t n);
/* cli_json_add of a whole array of fields. */
#define CLI_JSON_ADD(o, fields) cli_json_add((o), (fields), sizeof(fields) / sizeof(fields)[0])

#endif
