/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_wire.h -- a device's port on the wire, as a driver brings
 * up its netdev: the port's tunnel endpoint (the socket this layer bound
 * as the port's claim) becomes a UDP link, with the same-host fast path
 * over it when asked, and the port a VXLAN endpoint with the fabric's
 * settings, static peers and capture file.  Shared by every device type.
 */
#ifndef MLX5EMU_EMU_DEVICE_DEV_WIRE_H
#define MLX5EMU_EMU_DEVICE_DEV_WIRE_H

#include <stdbool.h>

#include "emu/device/dev_config.h"
#include "emu/device/dev_identity.h"
#include "emu/wire/wire.h"

/*
 * Port @p (0-based) of @id on the wire as @cfg describes it; @fast: the
 * same-host fast path too (when wire.fast_path allows); @link_up/@arg: the
 * port's link state, or NULL for always up.  The port, or NULL with errno
 * (an error is also told on stderr).
 */
struct emu_wire_port *emu_dev_wire_port(const struct emu_dev_identity *id,
					int p, const struct emu_config *cfg,
					bool fast, bool (*link_up)(void *arg),
					void *arg);

#endif /* MLX5EMU_EMU_DEVICE_DEV_WIRE_H */
