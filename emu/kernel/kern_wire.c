/* SPDX-License-Identifier: MIT */
/*
 * emu/kernel/kern_wire.c -- a device's ports join the wire when it comes
 * up, as a driver brings up its netdevs (emu/device/dev_wire.h), with the
 * same-host fast path and the fault rules' frame filter, handed to the
 * engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu/device/dev.h"
#include "emu/device/dev_identity.h"
#include "emu/device/dev_wire.h"
#include "emu/engine/eng.h"
#include "emu/fault/fault.h"
#include "emu/firmware/fw.h"
#include "emu/kernel/kern.h"
#include "emu/wire/wire.h"

static bool kern_wire_link_up(void *arg)
{
	const struct kern_wire_port *w = arg;
	bool up = true;

	return emu_fw_port_get_link(w->fw, w->port, &up) || up;
}

static int kern_wire_port(struct kern_dev *kdev,
			  const struct emu_dev_identity *id,
			  const struct emu_config *cfg, int p)
{
	struct emu_wire_port *wp;

	kdev->wire[p].fw = kdev->fw;
	kdev->wire[p].port = id->ports[p].port_num;
	wp = emu_dev_wire_port(id, p, cfg, true, kern_wire_link_up,
			       &kdev->wire[p]);
	if (!wp)
		return -errno;
	emu_fault_wire_attach(wp);
	return emu_eng_port_attach(kdev->fw, id->ports[p].port_num, wp);
}

int kern_wire_attach(struct kern_dev *kdev)
{
	const struct emu_dev_identity *id = emu_device_identity(kdev->index);
	const struct emu_config *cfg = emu_devices_config();

	if (!id || !cfg)
		return -ENODEV;
	kern_stats_init();
	for (int p = 0; p < id->num_ports && p < 2; p++) {
		int ret = kern_wire_port(kdev, id, cfg, p);

		if (ret)
			return ret;
	}
	return 0;
}
