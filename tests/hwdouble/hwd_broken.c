/* SPDX-License-Identifier: MIT */
/*
 * A libibverbs.so.1 that cannot be loaded: it needs a symbol no library
 * defines, so dlmopen(RTLD_NOW) fails (the hw backend's dlmopen error path).
 */
void hwd_no_such_function(void);
void ibv_get_device_list(void);

__attribute__((visibility("default"))) void ibv_get_device_list(void)
{
	hwd_no_such_function();
}
