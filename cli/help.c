/* SPDX-License-Identifier: MIT */
/*
 * cli/help.c -- the manual pages of the mlx5emu command.
 *
 * docs/mlx5emu.1.md carries each page verbatim; tests/cli/test_help.sh
 * fails when the two differ.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char man_main[] =
"NAME\n"
"    mlx5emu - run programs on emulated ConnectX-6 Dx (mlx5) devices\n"
"\n"
"SYNOPSIS\n"
"    mlx5emu run [OPTIONS] [--] PROGRAM [ARGS...]\n"
"    mlx5emu info [--devices N] [--mana N] [--ports N] [--config FILE]\n"
"                 [--all-caps]\n"
"    mlx5emu prm list\n"
"    mlx5emu prm dump STRUCT\n"
"    mlx5emu prm decode [--json] [STRUCT | --in | --out OPCODE] [HEX...]\n"
"    mlx5emu stats [--ports | --qps] [FILE...]\n"
"    mlx5emu help [run | info | prm | stats]\n"
"    mlx5emu --version\n"
"\n"
"DESCRIPTION\n"
"    mlx5emu is a pure-software NVIDIA ConnectX-6 Dx NIC that lives inside\n"
"    a program's own process, behind drop-in rdma-core 44 libraries\n"
"    (libibverbs.so.1, libmlx5.so.1, ...).  A program built against\n"
"    rdma-core runs on emulated devices mlx5_0, mlx5_1, ... when those\n"
"    libraries come first in its library path; this command does that for\n"
"    you, and shows what the emulated devices are.\n"
"\n"
"COMMANDS\n"
"    run      Run an unmodified program on emulated devices, with\n"
"             options for the number of devices and ports, the command\n"
"             trace, fault injection, a configuration file and\n"
"             /dev/infiniband nodes.  See mlx5emu help run.\n"
"    info     Print the emulated devices: names, GUIDs, firmware, ports,\n"
"             MACs, IPv4 addresses, GIDs with their types and the key\n"
"             capabilities.  See mlx5emu help info.\n"
"    prm      Show the PRM layouts mlx5emu knows, field by field, and\n"
"             decode command mailboxes given in hex.  See mlx5emu help prm.\n"
"    stats    Print the wire's counters (ports and QPs) that run --stats\n"
"             leaves.  See mlx5emu help stats.\n"
"    help     Print this page, or the page of one command (also\n"
"             mlx5emu COMMAND --help).\n"
"\n"
"ENVIRONMENT\n"
"    Every setting of the emulator is an MLX5EMU_* variable (or a line of\n"
"    the configuration file named by MLX5EMU_CONFIG): MLX5EMU_NUM_DEVICES,\n"
"    MLX5EMU_NUM_PORTS, MLX5EMU_TRACE, MLX5EMU_FAULTS, ...  See\n"
"    docs/configuration.md.\n"
"\n"
"EXIT STATUS\n"
"    run: the program's status, or 125 (mlx5emu failed), 126 (PROGRAM\n"
"    cannot be executed), 127 (PROGRAM not found).  Other commands: 0 on\n"
"    success, 1 on failure, 2 for a bad command line.\n"
"\n"
"SEE ALSO\n"
"    docs/mlx5emu.1.md, docs/trace.md, docs/fault-injection.md,\n"
"    docs/configuration.md, ibv_devinfo(1)\n";

static const char man_run[] =
"NAME\n"
"    mlx5emu run - run an unmodified program on emulated devices\n"
"\n"
"SYNOPSIS\n"
"    mlx5emu run [--devices N] [--mana N] [--ports N]\n"
"                [--trace[=MODE[:FILE]]] [--fault RULE]...\n"
"                [--config FILE] [--backend KIND]\n"
"                [--dev-nodes] [--deterministic[=SEED]] [--stats=FILE]\n"
"                [--verbose]\n"
"                [--] PROGRAM [ARGS...]\n"
"\n"
"DESCRIPTION\n"
"    Runs PROGRAM (searched in PATH) with mlx5emu's drop-in libraries\n"
"    first in LD_LIBRARY_PATH, so that a program linked against rdma-core\n"
"    (libibverbs, libmlx5) finds emulated devices mlx5_0, mlx5_1, ...  The\n"
"    drop-in directory is the one this mlx5emu was built or installed with:\n"
"    <build>/lib, or ${libdir}/mlx5emu.  The options set the emulator's\n"
"    environment variables; every other MLX5EMU_* variable already in the\n"
"    environment passes through.  mlx5emu then replaces itself with\n"
"    PROGRAM (exec), so PROGRAM keeps mlx5emu's pid, and its signals and\n"
"    exit status are PROGRAM's own.\n"
"\n"
"OPTIONS\n"
"    --devices N\n"
"        MLX5EMU_NUM_DEVICES=N: the number of emulated devices (0 to 16).\n"
"    --mana N\n"
"        MLX5EMU_MANA_DEVICES=N: emulated MANA devices mana_0, ... (0 to\n"
"        4) for programs built on libmana (manadv).\n"
"    --ports N\n"
"        MLX5EMU_NUM_PORTS=N: ports per device (1 or 2).\n"
"    --trace[=MODE[:FILE]]\n"
"        MLX5EMU_TRACE=MODE[:FILE]: trace every firmware command, decoded\n"
"        by field name, one line per command.  MODE is text (the default)\n"
"        or json (JSON lines); without FILE the trace goes to standard\n"
"        error.  FILE is emptied first; a %p in it becomes the pid of each\n"
"        traced process.  See docs/trace.md.\n"
"    --fault RULE\n"
"        Add a fault-injection rule, such as\n"
"        'fail opcode=CREATE_CQ syndrome=CQ_IN_USE nth=2'.  Repeatable;\n"
"        the rules are appended, separated by ';', to MLX5EMU_FAULTS.\n"
"        Each rule is checked first: a bad one stops mlx5emu with the\n"
"        rule and what is wrong with it.  See docs/fault-injection.md.\n"
"    --config FILE\n"
"        MLX5EMU_CONFIG=FILE: read settings from this configuration file\n"
"        (the environment still overrides it); FILE must be readable.  See\n"
"        docs/configuration.md.\n"
"    --backend KIND\n"
"        MLX5EMU_BACKEND=KIND: emu (emulated devices, the default), hw\n"
"        (the real ConnectX devices of this machine, through the\n"
"        system's rdma-core, with the same fault rules and trace) or\n"
"        auto (the real ones when there are, else emulated).  See\n"
"        docs/hardware.md.\n"
"    --dev-nodes\n"
"        Make /dev/infiniband/uverbsN exist for PROGRAM, one per emulated\n"
"        device, for programs that stat() it before opening a device.\n"
"        See DEVICE NODES.\n"
"    --deterministic[=SEED]\n"
"        MLX5EMU_ENGINE_MODE=deterministic (and MLX5EMU_SEED=SEED): the\n"
"        devices run no thread of their own but advance inside PROGRAM's\n"
"        post, poll and get-event calls, on a virtual clock, with one seed\n"
"        for everything random, and address randomization is turned off\n"
"        (as setarch -R does): a run of a single-threaded PROGRAM, its\n"
"        faults and its trace included, repeats exactly.  See\n"
"        docs/determinism.md.\n"
"    --stats=FILE\n"
"        MLX5EMU_WIRE_STATS=FILE: the wire's counters of every port and QP\n"
"        are appended to FILE as JSON lines; mlx5emu stats FILE prints\n"
"        them as tables.\n"
"    -v, --verbose\n"
"        Print the variables set and the command to standard error first.\n"
"    -h, --help\n"
"        Print this page.\n"
"\n"
"DEVICE NODES\n"
"    The emulator needs no device node: the drop-in libraries never open\n"
"    /dev/infiniband.  With --dev-nodes, PROGRAM runs in a private mount\n"
"    namespace whose /dev is a copy of the real one (a tmpfs holding bind\n"
"    mounts of every entry) plus a directory infiniband/ (in place of any\n"
"    real one) with a node uverbsN for each emulated device; nothing\n"
"    changes outside PROGRAM.\n"
"    As root, each node is a character device with the numbers the device\n"
"    reports (231:192+N, as in <ibdev_path>/../../infiniband_verbs/\n"
"    uverbsN/dev).  Not as root, PROGRAM also runs in a user namespace\n"
"    that maps only the caller's own uid and gid (so PROGRAM keeps them),\n"
"    and since no character device can be made there, each node is a bind\n"
"    mount of /dev/null: stat() sees a character device, but numbered 1:3.\n"
"    Opening a node never reaches the emulator.\n"
"    When the devices advertise user capabilities (the RDMA_CTRL object\n"
"    type and uctx_cap bits, by configuration: docs/configuration.md),\n"
"    infiniband/ also holds mlx5_perm_ctrl_local and/or\n"
"    mlx5_perm_ctrl_other_vhca, mode 0600, as empty files the emulator\n"
"    knows: their descriptors in mlx5dv_open_device's fd array grant the\n"
"    capabilities, as the kernel's ucap nodes do.\n"
"\n"
"EXIT STATUS\n"
"    PROGRAM's exit status; 125 when mlx5emu itself fails (a bad option,\n"
"    no drop-in directory, a namespace that cannot be made), 126 when\n"
"    PROGRAM cannot be executed, 127 when it is not found.\n"
"\n"
"EXAMPLES\n"
"    mlx5emu run -- ibv_devinfo -v\n"
"    mlx5emu run --devices 2 --ports 2 -- ibv_devices\n"
"    mlx5emu run --trace=json:/tmp/cmds.jsonl -- mlx5emu-devx-example\n"
"    mlx5emu run --fault 'fail opcode=CREATE_CQ' -- mlx5emu-devx-example\n"
"    mlx5emu run --backend hw --trace -- ibv_devinfo -d mlx5_0\n"
"    mlx5emu run --deterministic=42 --trace=text:t.txt -- mlx5emu-devx-example\n"
"    mlx5emu run --dev-nodes -- stat -c '%F %t:%T' /dev/infiniband/uverbs0\n";

static const char man_info[] =
"NAME\n"
"    mlx5emu info - print the emulated devices\n"
"\n"
"SYNOPSIS\n"
"    mlx5emu info [--devices N] [--mana N] [--ports N] [--config FILE]\n"
"                 [--all-caps]\n"
"\n"
"DESCRIPTION\n"
"    Opens each emulated device through the drop-in libraries, exactly as\n"
"    a program would, and prints what it answers: the device's name and\n"
"    uverbs node, GUIDs, firmware version, board id and PCI ids; for each\n"
"    port its state, link layer, MTUs, MAC address, IPv4 address and every\n"
"    valid GID with its type (RoCE v1, RoCE v2); then the key verbs\n"
"    limits (ibv_query_device_ex), the mlx5dv flags (mlx5dv_query_device)\n"
"    and the general capability page's key fields (QUERY_HCA_CAP through\n"
"    DEVX, by PRM field name).  The first line names the drop-in\n"
"    directory in use.\n"
"\n"
"    MANA devices (mana_0, ...), when configured, follow the mlx5 ones:\n"
"    their ports with each one's MAC from its netdev (no GID: mana_ib has\n"
"    none) and their verbs limits with the raw packet capabilities; they\n"
"    have no mlx5dv or DEVX.\n"
"\n"
"OPTIONS\n"
"    --devices N, --mana N, --ports N, --config FILE\n"
"        As for mlx5emu run: the configuration to show.\n"
"    --all-caps\n"
"        Print every non-zero field of the general capability page\n"
"        (cmd_hca_cap) instead of the key ones.\n"
"    -h, --help\n"
"        Print this page.\n"
"\n"
"EXIT STATUS\n"
"    0 when every device could be opened and queried, 1 otherwise; 2 for\n"
"    a bad command line (an option value out of range, a --config FILE\n"
"    that cannot be read).\n";

static const char man_prm[] =
"NAME\n"
"    mlx5emu prm - PRM layouts and mailbox decoding\n"
"\n"
"SYNOPSIS\n"
"    mlx5emu prm list\n"
"    mlx5emu prm dump STRUCT\n"
"    mlx5emu prm decode [--json] [--all] [--opcode OPCODE] [--op-mod N]\n"
"                       [STRUCT | --in | --out OPCODE] [HEX...]\n"
"\n"
"DESCRIPTION\n"
"    prm/ describes every PRM structure mlx5emu implements (command\n"
"    mailboxes, contexts, capability pages), with the Linux kernel's\n"
"    mlx5_ifc.h names and offsets.  These commands read that table.\n"
"\n"
"    list\n"
"        Print the name and size of every structure.\n"
"    dump STRUCT\n"
"        Print STRUCT's layout: one line per field with its bit offset,\n"
"        width and name; nested structures are expanded with dotted names\n"
"        (cq_context.log_cq_size), arrays show their element count ([N],\n"
"        [] when flexible) and the first element's fields.\n"
"    decode [STRUCT | --in | --out OPCODE] [HEX...]\n"
"        Decode a mailbox given in hex (in the arguments, or on standard\n"
"        input when there are none): big-endian bytes as a firmware\n"
"        command sees them, e.g. 04000000 00000000 or 0x0400...; spaces,\n"
"        colons, newlines and 0x prefixes are ignored.  With --in the\n"
"        structure is the inbox of the opcode in the mailbox's first two\n"
"        bytes (CREATE_CQ -> create_cq_in); with --out OPCODE the outbox\n"
"        of that opcode (a name such as CREATE_CQ, or a number); with\n"
"        STRUCT that structure.  The default is --in.  Fields that are 0\n"
"        are left out unless --all is given; --json prints one JSON\n"
"        object instead.  Unions are decoded by the member the command\n"
"        uses (QUERY_HCA_CAP's page by op_mod); --opcode and --op-mod\n"
"        give the command when STRUCT is named.\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 for an unknown structure or opcode or bad hex, 2 for\n"
"    a bad command line.\n"
"\n"
"EXAMPLES\n"
"    mlx5emu prm dump create_cq_in\n"
"    mlx5emu prm decode --in 04000000 00000000\n"
"    mlx5emu prm decode --out ALLOC_PD 00000000 00000000 00000005 00000000\n"
"    echo 00000000 00000000 00000000 07000000 | mlx5emu prm decode cqc\n";

static const char man_stats[] =
"NAME\n"
"    mlx5emu stats - the wire's counters, ports and QPs, as tables\n"
"\n"
"SYNOPSIS\n"
"    mlx5emu stats [--ports | --qps] [FILE...]\n"
"\n"
"DESCRIPTION\n"
"    Reads the counters the emulator leaves with wire.stats (mlx5emu run\n"
"    --stats=FILE, or MLX5EMU_WIRE_STATS): JSON lines, one per port at\n"
"    process exit and one per QP that carried packets when it is destroyed\n"
"    or at exit.  Several FILEs (or processes appending to one) give one\n"
"    table; without FILE, or with -, standard input is read.\n"
"    The port table has frames and bytes sent and received, the frames a\n"
"    fault rule acted on, the forwarding entries learned and the frames\n"
"    dropped by reason (malformed, bad_icrc, no_qp, psn, fault, ...,\n"
"    not_roce for frames of other protocols).  The QP table has packets\n"
"    sent and received, messages sent again (retransmits), NAKs sent and\n"
"    received, RNR NAKs received, duplicates, packets no state machine\n"
"    took (dropped) and transport timer expiries (timeouts), then their\n"
"    total.  The ConnectX counters of a queue counter set (out_of_sequence,\n"
"    duplicate_request, local_ack_timeout_err, ...) are read as on hardware\n"
"    instead, through QUERY_Q_COUNTER.  See docs/configuration.md.\n"
"\n"
"OPTIONS\n"
"    --ports\n"
"        Print the port table only.\n"
"    --qps\n"
"        Print the QP table only.\n"
"    -h, --help\n"
"        Print this page.\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 for a file that cannot be read or a line that is not\n"
"    a wire.stats line (named with its number), 2 for a bad command line.\n"
"\n"
"EXAMPLES\n"
"    mlx5emu run --stats=/tmp/wire.jsonl -- ibv_devinfo\n"
"    mlx5emu stats /tmp/wire.jsonl\n";

static const struct {
	const char *topic;
	const char *page;
} manuals[] = {
	{ "mlx5emu", man_main },
	{ "run", man_run },
	{ "info", man_info },
	{ "prm", man_prm },
	{ "stats", man_stats },
};

const char *cli_manual(const char *topic)
{
	for (size_t i = 0; i < sizeof(manuals) / sizeof(manuals[0]); i++)
		if (!strcmp(manuals[i].topic, topic))
			return manuals[i].page;
	return NULL;
}

int cli_print_manual(const char *topic)
{
	const char *page = cli_manual(topic);

	if (!page) {
		fprintf(stderr,
			"mlx5emu help: no page for '%s' (run, info, prm, stats)\n",
			topic);
		return CLI_EXIT_USAGE;
	}
	fputs(page, stdout);
	return 0;
}

int cmd_help(int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "usage: mlx5emu help [run | info | prm | stats]\n");
		return CLI_EXIT_USAGE;
	}
	return cli_print_manual(argc == 2 ? argv[1] : "mlx5emu");
}
