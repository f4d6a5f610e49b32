/* turnsout: the turns' lines, each arm's and each against the cheapest, and -J's object. */
#ifndef ZC_TURNSOUT_H
#define ZC_TURNSOUT_H

#include <stdio.h>

#include "json.h"
#include "turns.h"

/* The arms' lines, and with a meter each arm against the cheapest. */
void turns_print(const struct turns *t, FILE *out, char unit);
/* The same as -J's slot_ms, block_cycles, arms, cheapest, comparisons and slots. */
void turns_json(const struct turns *t, struct json *j);

#endif
