/* prm/prm_fields_int.h -- between the generated table and prm_fields.c. */
#ifndef MLX5EMU_PRM_FIELDS_INT_H
#define MLX5EMU_PRM_FIELDS_INT_H

#include <stddef.h>

#include "prm/prm_fields.h"

/* Sorted by name (generated prm_fields.c). */
extern const struct prm_struct_desc *const prm_struct_table[];
extern const size_t prm_struct_table_len;

#endif /* MLX5EMU_PRM_FIELDS_INT_H */
