/* SPDX-License-Identifier: MIT */
/*
 * emu/fault/fault_wire.c -- the wire rules as a port's frame filter: what
 * a port tells of a frame becomes what a rule matches, and the rule's
 * action what the port does to the frame.
 */
#include "emu/fault/fault.h"
#include "emu/wire/wire.h"

static bool fault_wire_active(void *arg)
{
	(void)arg;
	return emu_fault_wire_active();
}

static enum emu_wire_verdict fault_wire_frame(void *arg,
					      const struct emu_wire_frame_info *fi,
					      uint32_t *delay_us)
{
	struct emu_fault_frame f = {
		.dev = fi->dev, .port = fi->port, .rx = fi->rx,
		.roce = fi->roce, .opcode = fi->opcode, .qpn = fi->dqpn,
		.psn = fi->psn,
	};

	(void)arg;
	switch (emu_fault_frame_verdict(&f, delay_us)) {
	case MLX5EMU_FAULT_DROP:
		return EMU_WIRE_FDROP;
	case MLX5EMU_FAULT_DUPLICATE:
		return EMU_WIRE_FDUP;
	case MLX5EMU_FAULT_REORDER:
		return EMU_WIRE_FREORDER;
	case MLX5EMU_FAULT_CORRUPT:
		return EMU_WIRE_FCORRUPT;
	case MLX5EMU_FAULT_DELAY:
		return EMU_WIRE_FDELAY;
	default:
		return EMU_WIRE_PASS;
	}
}

static const struct emu_wire_filter fault_wire_filter = {
	.active = fault_wire_active,
	.frame = fault_wire_frame,
};

/* The configured rules were installed by the device's emu_fault_attach(). */
void emu_fault_wire_attach(struct emu_wire_port *port)
{
	emu_wire_port_set_filter(port, &fault_wire_filter);
}
