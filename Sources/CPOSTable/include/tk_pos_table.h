#ifndef TK_POS_TABLE_H
#define TK_POS_TABLE_H
/* The part-of-speech table of TKCore's POSLexicon, laid out when the program is built: an
   open-addressed table of word hashes (0: a free slot) and their tags. Written by
   scripts/gen_pos_table from POSLexicon.table(); POSTableTests checks that the two agree. */
#include <stdint.h>

#define TK_POS_CAPACITY 131072

extern const uint64_t tk_pos_keys_data[TK_POS_CAPACITY];
extern const uint32_t tk_pos_values_data[TK_POS_CAPACITY];

static inline const uint64_t *_Nonnull tk_pos_keys(void) { return tk_pos_keys_data; }
static inline const uint32_t *_Nonnull tk_pos_values(void) { return tk_pos_values_data; }

#endif
