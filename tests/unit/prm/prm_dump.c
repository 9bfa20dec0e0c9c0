/*
 * tests/unit/prm/prm_dump.c -- print the PRM field table as JSON lines:
 * {"struct":..,"field":..,"bit_off":..,"width":..,"type":..,"count":..,"union":..}
 * (width: of one element; type: nested struct name or null; count: 0 scalar,
 * N array, -1 flexible).  Read by scapy_crosscheck.py.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "prm/prm_fields.h"

int main(void)
{
	for (size_t i = 0; i < prm_struct_count(); i++) {
		const struct prm_struct_desc *sd = prm_struct_at(i);

		printf("{\"struct\":\"%s\",\"size\":%u,\"union\":%s}\n", sd->name,
		       sd->size_bits, sd->flags & PRM_STRUCT_UNION ? "true" : "false");
		for (uint32_t j = 0; j < sd->nfields; j++) {
			const struct prm_field_desc *fd = &sd->fields[j];

			printf("{\"struct\":\"%s\",\"field\":\"%s\",\"bit_off\":%u,"
			       "\"width\":%u,\"type\":%s%s%s,\"count\":%lld}\n",
			       sd->name, fd->name, fd->bit_off, fd->bit_width,
			       fd->type ? "\"" : "", fd->type ? fd->type->name : "null",
			       fd->type ? "\"" : "",
			       fd->count == PRM_COUNT_FLEX ? -1LL : (long long)fd->count);
		}
	}
	return ferror(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
}
