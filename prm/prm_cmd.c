/* prm/prm_cmd.c -- names of opcodes and statuses. */
#include <stddef.h>
#include <stdint.h>

#include "prm/prm_cmd.h"

const char *prm_opcode_str(uint16_t opcode)
{
	switch (opcode) {
#define PRM_OPCODE(name, val) case (val): return #name;
#include "prm/opcodes.def"
#undef PRM_OPCODE
	default:
		return "unknown command opcode";
	}
}

const char *prm_status_str(uint8_t status)
{
	switch (status) {
#define PRM_X(name, val, str) case (val): return str;
	PRM_CMD_STATUSES(PRM_X)
#undef PRM_X
	default:
		return "unknown status";
	}
}

const char *prm_status_name(uint8_t status)
{
	switch (status) {
#define PRM_X(name, val, str) case (val): return #name;
	PRM_CMD_STATUSES(PRM_X)
#undef PRM_X
	default:
		return NULL;
	}
}
