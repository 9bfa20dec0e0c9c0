/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

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

int ut_net_raw_set(int on)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	int was;

	if (syscall(SYS_capget, &h, d))
		return -1;
	was = !!(d[0].effective & (1u << CAP_NET_RAW));
	if (on)
		d[0].effective |= 1u << CAP_NET_RAW;
	else
		d[0].effective &= ~(1u << CAP_NET_RAW);
	return syscall(SYS_capset, &h, d) ? -1 : was;
}
