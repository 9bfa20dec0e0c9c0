/*
 * tests/unit/prm/compile_fail.c -- each CASE misuses an accessor and must be
 * rejected at compile time by the _Static_assert in prm/prm.h or prm_le.h, or
 * because the layout has the other byte order's name (CTest matches
 * the message); CASE 0 is the control and must compile cleanly.
 */
#include <stdint.h>

#include "prm/prm.h"
#include "prm/prm_le.h"

uint32_t prm_compile_case(void *in);

uint32_t prm_compile_case(void *in)
{
#if CASE == 0
	PRM_SET(create_cq_in, in, cq_context.log_cq_size, 8);
	PRM_SET64(create_cq_in, in, cq_context.dbr_addr, 1);
	return PRM_GET(create_cq_in, in, cq_umem_id) +
	       (uint32_t)PRM_GET64(create_cq_in, in, cq_context.dbr_addr) +
	       PRM_FLD_SZ_BYTES(create_cq_in, cq_context) +
	       (uint32_t)(uintptr_t)PRM_ADDR_OF(create_cq_in, in, cq_context) +
	       PRM_LE_GET(gdma_cqe, in, cqe_info.owner_bits) +
	       (uint32_t)PRM_LE_GET64(gdma_sge, in, address);
#elif CASE == 1	/* PRM_SET on a 64-bit field */
	PRM_SET(create_cq_in, in, cq_context.dbr_addr, 1);
	return 0;
#elif CASE == 2	/* PRM_GET on a nested struct */
	return PRM_GET(create_cq_in, in, cq_context);
#elif CASE == 3	/* PRM_SET64 on a 32-bit field */
	PRM_SET64(create_cq_in, in, cq_umem_id, 1);
	return 0;
#elif CASE == 4	/* PRM_ADDR_OF on a field that is not byte aligned */
	return (uint32_t)(uintptr_t)PRM_ADDR_OF(create_cq_in, in, cq_context.log_cq_size);
#elif CASE == 5	/* PRM_FLD_SZ_BYTES on a 5-bit field */
	return PRM_FLD_SZ_BYTES(create_cq_in, cq_context.log_cq_size);
#elif CASE == 6	/* PRM_GET64 on a 64-bit array of a flexible array base */
	return (uint32_t)PRM_GET64(create_cq_in, in, pas);
#elif CASE == 7	/* a big-endian accessor on a little-endian layout */
	return PRM_GET(gdma_cqe, in, cqe_info.owner_bits);
#elif CASE == 8	/* a little-endian accessor on an mlx5 layout */
	return PRM_LE_GET(create_cq_in, in, cq_umem_id);
#elif CASE == 9	/* PRM_LE_SET on a 64-bit field */
	PRM_LE_SET(gdma_sge, in, address, 1);
	return 0;
#else
#error unknown CASE
#endif
}
