/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ut_env.h"

void ut_clear_env(void)
{
	for (;;) {
		char name[256];
		char **e;

		for (e = environ; *e; e++)
			if (!strncmp(*e, "MLX5EMU_", 8))
				break;
		if (!*e)
			return;
		snprintf(name, sizeof(name), "%.*s",
			 (int)(strchr(*e, '=') - *e), *e);
		unsetenv(name);
	}
}
