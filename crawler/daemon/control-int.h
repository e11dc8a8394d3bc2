/* control-int.h — what control.c and control-answer.c share, private to
 * the daemon's room: the content type of the JSON answers and how they
 * are printed. */
#ifndef CONTROL_INT_H
#define CONTROL_INT_H

#include <jansson.h>

#define JSON_TYPE "application/json"

/* Reals in answers: 15 significant digits, so that a figure rounded to
 * 0.1 prints as 16.4, not 16.399999999999999 (jansson's default is 17). */
#define JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

#endif
