/* SPDX-License-Identifier: MIT */
/*
 * Devices as the kernel holds them.  A device is brought up on its first
 * open, as the driver probes a PCI function: firmware with the device's
 * identity, its capabilities read (QUERY_HCA_CAP), the RoCE address table
 * programmed (SET_ROCE_ADDRESS, as mlx5_ib does when GIDs appear), the
 * kernel's EQs (kern_eq.c: the async one and the completion EQs whose
 * numbers query_eqn hands out) and their interrupt, and each port's MTU set
 * as mlx5e sets it for its netdev (PMTU).  It then lives until the process
 * ends; a forked child starts over with fresh devices.
 */
#include "emu/firmware/fw_objs.h"	/* first: liburcu, bp flavour */

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/dev.h"
#include "emu/device/dev_identity.h"
#include "emu/engine/eng.h"
#include "emu/fault/fault.h"
#include "emu/firmware/fw.h"
#include "emu/kernel/kern.h"
#include "emu/trace/trace.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

#define KERN_MAX_DEVICES 16

static pthread_mutex_t kern_devs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kern_dev *kern_devs[KERN_MAX_DEVICES];
static pthread_once_t kern_atfork_once = PTHREAD_ONCE_INIT;
/* Devices of the parent (and its parents): kept, never used again. */
static struct kern_dev *kern_devs_forked;

/* The child's devices are its parent's memory: it starts over, and keeps
 * the parent's (their contexts hold pointers to them) where nothing
 * reaches them but its inherited contexts. */
static void kern_devs_atfork_child(void)
{
	for (int i = 0; i < KERN_MAX_DEVICES; i++) {
		if (!kern_devs[i])
			continue;
		kern_devs[i]->forked_next = kern_devs_forked;
		kern_devs_forked = kern_devs[i];
	}
	memset(kern_devs, 0, sizeof(kern_devs));
	pthread_mutex_init(&kern_devs_lock, NULL);
}

static void kern_atfork_register(void)
{
	/* The device model's RCU (deferred frees of firmware objects).
	 * liburcu's README warns against pthread_atfork() for call_rcu's
	 * handlers where the allocator's own fork locking ran as an atfork
	 * handler too; glibc since 2.24 (BZ #19431) locks its arenas after
	 * the prepare handlers and unlocks them before the others. */
	pthread_atfork(emu_fw_rcu_before_fork, emu_fw_rcu_after_fork_parent,
		       emu_fw_rcu_after_fork_child);
	pthread_atfork(NULL, NULL, kern_devs_atfork_child);
	kern_inject_register();
	kern_dp_register();
}

int kern_fw_exec(struct kern_dev *kdev, const void *in, size_t inlen,
		 void *out, size_t outlen)
{
	if (__atomic_load_n(&kdev->fatal, __ATOMIC_ACQUIRE))
		return kern_fatal_exec(kdev, in, inlen, out, outlen);
	return emu_fw_cmd_exec(kdev->fw, in, inlen, out, outlen);
}

int kern_fw_exec_checked(struct kern_dev *kdev, void *in, size_t inlen,
			 void *out, size_t outlen)
{
	int ret = kern_fw_exec(kdev, in, inlen, out, outlen);

	if (ret)
		return ret;
	return kern_status_to_errno(kern_mbox_status(out));
}

bool kern_dev_is_comp_eq(const struct kern_dev *kdev, uint32_t eqn)
{
	for (int i = 0; i < KERN_NUM_COMP_VECTORS; i++)
		if (kdev->eqn[i] == eqn)
			return true;
	return false;
}

static int kern_dev_set_gids(struct kern_dev *kdev,
			     const struct emu_dev_identity *id)
{
	for (int p = 0; p < id->num_ports; p++) {
		const struct emu_port_identity *port = &id->ports[p];

		for (int i = 0; i < port->gid_tbl_len; i++) {
			uint8_t in[PRM_ST_SZ_BYTES(set_roce_address_in)] = {};
			uint8_t out[PRM_ST_SZ_BYTES(set_roce_address_out)] = {};
			void *addr = PRM_ADDR_OF(set_roce_address_in, in, roce_address);
			const struct emu_gid_entry *g = &port->gids[i];
			bool v4 = !memcmp(g->gid, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
			int ret;

			if (!g->valid)
				continue;
			PRM_SET(set_roce_address_in, in, opcode,
				MLX5_CMD_OP_SET_ROCE_ADDRESS);
			PRM_SET(set_roce_address_in, in, roce_address_index, i);
			PRM_SET(set_roce_address_in, in, vhca_port_num,
				id->num_ports > 1 ? port->port_num : 0);
			memcpy(PRM_ADDR_OF(roce_addr_layout, addr, source_l3_address),
			       g->gid, 16);
			PRM_SET(roce_addr_layout, addr, source_mac_47_32,
				port->mac[0] << 8 | port->mac[1]);
			PRM_SET(roce_addr_layout, addr, source_mac_31_0,
				(uint32_t)port->mac[2] << 24 | port->mac[3] << 16 |
					port->mac[4] << 8 | port->mac[5]);
			PRM_SET(roce_addr_layout, addr, roce_version,
				g->type == EMU_GID_TYPE_ROCE_V2 ?
				MLX5_ROCE_VERSION_2 : MLX5_ROCE_VERSION_1);
			PRM_SET(roce_addr_layout, addr, roce_l3_type,
				v4 ? MLX5_ROCE_L3_TYPE_IPV4 : MLX5_ROCE_L3_TYPE_IPV6);
			ret = kern_fw_exec_checked(kdev, in, sizeof(in), out, sizeof(out));
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* mlx5_core caches the capabilities in effect when it initialises. */
static int kern_dev_query_caps(struct kern_dev *kdev)
{
	uint8_t in[PRM_ST_SZ_BYTES(query_hca_cap_in)] = {};
	size_t outlen = PRM_ST_SZ_BYTES(query_hca_cap_out);
	uint8_t *out = calloc(1, outlen);
	int ret;

	if (!out)
		return -ENOMEM;
	PRM_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	PRM_SET(query_hca_cap_in, in, op_mod,
		MLX5_CAP_GENERAL << 1 | HCA_CAP_OPMOD_GET_CUR);
	ret = kern_fw_exec_checked(kdev, in, sizeof(in), out, outlen);
	if (!ret)
		memcpy(kdev->cap_gen,
		       PRM_ADDR_OF(query_hca_cap_out, out, capability),
		       sizeof(kdev->cap_gen));
	free(out);
	return ret;
}

/* Each port's netdev comes up with its MTU (mlx5e programs PMTU). */
static int kern_dev_set_mtus(struct kern_dev *kdev,
			     const struct emu_dev_identity *id)
{
	for (int p = 0; p < id->num_ports; p++) {
		int ret = kern_port_set_mtu(kdev, (unsigned int)p + 1,
					    id->ports[p].netdev_mtu);

		if (ret)
			return ret;
	}
	return 0;
}

/* engine.mode; the same for every device of the process. */
static int kern_dev_engine_mode(void)
{
	static const enum emu_eng_mode modes[] = {
		[EMU_ENGINE_THREADED] = EMU_ENG_THREADED,
		[EMU_ENGINE_INLINE] = EMU_ENG_INLINE,
		[EMU_ENGINE_DETERMINISTIC] = EMU_ENG_DETERMINISTIC,
	};

	return emu_eng_set_mode(modes[emu_devices_config()->engine_mode]);
}

static struct kern_dev *kern_dev_create(int index)
{
	const struct emu_dev_identity *id = emu_device_identity(index);
	struct emu_fw_config cfg;
	struct kern_dev *kdev;

	/* The engine's mode (and clock) before the device's first command. */
	if (kern_dev_engine_mode())
		return NULL;
	kdev = calloc(1, sizeof(*kdev));
	if (!kdev)
		return NULL;
	kdev->index = index;
	kern_dev_cqs_init(kdev);
	pthread_mutex_init(&kdev->flow.lock, NULL);
	pthread_mutex_init(&kdev->lb.lock, NULL);
	kern_event_table_init(&kdev->ev);
	emu_fw_config_default(&cfg);
	cfg.num_ports = id->num_ports;
	for (int p = 0; p < id->num_ports; p++) {
		memcpy(cfg.port[p].mac, id->ports[p].mac, 6);
		cfg.port[p].link_up = id->ports[p].state == 4; /* ACTIVE */
		cfg.port[p].eth_link_mode = id->ports[p].eth_link_mode;
	}
	cfg.node_guid = id->node_guid;
	cfg.system_image_guid = id->sys_image_guid;
	cfg.fw_rev_major = id->fw_major;
	cfg.fw_rev_minor = id->fw_minor;
	cfg.fw_rev_subminor = id->fw_subminor;
	memcpy(cfg.board_id, id->board_id,
	       strnlen(id->board_id, sizeof(cfg.board_id) - 1));
	cfg.vhca_id = (uint16_t)index;
	cfg.caps = emu_devices_config()->fw_caps;	/* [caps] overrides */
	kdev->fw = emu_fw_create(&cfg);
	if (!kdev->fw)
		goto err_free;
	emu_trace_attach(kdev->fw, id->name);	/* when the trace is on */
	if (kern_dev_query_caps(kdev) || kern_clock_init(kdev) ||
	    kern_dev_set_gids(kdev, id) ||
	    kern_eq_create_all(kdev) || kern_dev_set_mtus(kdev, id))
		goto err_fw;
	emu_fault_attach(kdev->fw, index);	/* rules see commands from here */
	kern_dp_device_up();
	/* The device executes work from now on (the engine thread starts
	 * with the first device), and interrupts the kernel's EQs. */
	if (emu_eng_device_add(kdev->fw, index))
		goto err_fw;
	emu_eng_set_irq(kdev->fw, kern_eq_irq, kdev);
	/* Its ports' cables: packets for GIDs of other processes or hosts. */
	if (kern_wire_attach(kdev)) {
		emu_eng_device_remove(kdev->fw);
		goto err_fw;
	}
	return kdev;

err_fw:
	kern_clock_fini(kdev);
	emu_fw_destroy(kdev->fw);
err_free:
	free(kdev);
	return NULL;
}

int kern_dev_get(int index, struct kern_dev **out)
{
	bool created = false;
	int ret;

	pthread_once(&kern_atfork_once, kern_atfork_register);
	ret = emu_devices_init();
	if (ret)
		return ret;
	if (index < 0 || index >= emu_devices_count() || index >= KERN_MAX_DEVICES)
		return -ENODEV;
	pthread_mutex_lock(&kern_devs_lock);
	if (!kern_devs[index]) {
		created = true;
		kern_devs[index] = kern_dev_create(index);
	}
	if (!kern_devs[index]) {
		pthread_mutex_unlock(&kern_devs_lock);
		return -ENOMEM;
	}
	/* An open context: the engine thread runs (again). */
	ret = kern_devs[index]->refs++ ? 0 : emu_eng_start();
	if (ret) {
		kern_devs[index]->refs--;
		pthread_mutex_unlock(&kern_devs_lock);
		return ret;
	}
	*out = kern_devs[index];
	pthread_mutex_unlock(&kern_devs_lock);
	/* Rules raising events on this device fire now that it is up. */
	if (created)
		emu_fault_device_up(index);
	return 0;
}

struct kern_dev *kern_dev_find(int index)
{
	struct kern_dev *kdev = NULL;

	pthread_mutex_lock(&kern_devs_lock);
	if (index >= 0 && index < KERN_MAX_DEVICES)
		kdev = kern_devs[index];
	pthread_mutex_unlock(&kern_devs_lock);
	return kdev;
}

void kern_dev_put(struct kern_dev *kdev)
{
	int open = 0;

	/* The device outlives its contexts, as a probed PCI function does;
	 * with no context open anywhere the engine thread stops. */
	pthread_mutex_lock(&kern_devs_lock);
	kdev->refs--;
	for (int i = 0; i < KERN_MAX_DEVICES; i++)
		open += kern_devs[i] ? kern_devs[i]->refs : 0;
	if (!open)
		emu_eng_stop();
	pthread_mutex_unlock(&kern_devs_lock);
}
