// ICU's regular expressions (uregex), called directly. Foundation on Linux ships ICU as
// lib_FoundationICU with every C symbol prefixed `swift_`: linked into the binary with the rest of
// Foundation by `--static-swift-stdlib` (the shipped build), the toolchain's shared library in a
// debug build. Its headers are not installed, so the few declarations tk-agent uses are spelled
// out here from ICU's stable C API (unicode/uregex.h, ICU 76).
//
// Why not NSRegularExpression: each of its calls copies the whole string into UTF-16 again, wraps
// each match in an object, and an anchored search is a full search stopped by a callback. Vale's
// rules make tens of thousands of such calls on a chapter. Here the text is converted once per
// block and each pattern is tried where it can match.
#ifndef TK_ICU_REGEX_SHIM_H
#define TK_ICU_REGEX_SHIM_H
#include <stdint.h>
#include <stdbool.h>

typedef uint16_t TKUChar;
typedef int TKUErrorCode;              // ICU's UErrorCode: 0 success, > 0 failure
typedef struct TKURegex TKURegex;      // ICU's URegularExpression

typedef struct TKUParseError {
    int32_t line;
    int32_t offset;
    TKUChar preContext[16];
    TKUChar postContext[16];
} TKUParseError;

TKURegex *swift_uregex_open(const TKUChar *pattern, int32_t patternLength, uint32_t flags,
                            TKUParseError *pe, TKUErrorCode *status);
TKURegex *swift_uregex_clone(const TKURegex *regexp, TKUErrorCode *status);
void swift_uregex_close(TKURegex *regexp);
void swift_uregex_setText(TKURegex *regexp, const TKUChar *text, int32_t textLength, TKUErrorCode *status);
bool swift_uregex_findNext(TKURegex *regexp, TKUErrorCode *status);
bool swift_uregex_lookingAt(TKURegex *regexp, int32_t startIndex, TKUErrorCode *status);
int32_t swift_uregex_start(TKURegex *regexp, int32_t groupNum, TKUErrorCode *status);
int32_t swift_uregex_end(TKURegex *regexp, int32_t groupNum, TKUErrorCode *status);
int32_t swift_uregex_groupCount(TKURegex *regexp, TKUErrorCode *status);
void swift_uregex_setRegion(TKURegex *regexp, int32_t regionStart, int32_t regionLimit, TKUErrorCode *status);
void swift_uregex_useTransparentBounds(TKURegex *regexp, bool b, TKUErrorCode *status);
void swift_uregex_useAnchoringBounds(TKURegex *regexp, bool b, TKUErrorCode *status);
void swift_uregex_reset(TKURegex *regexp, int32_t index, TKUErrorCode *status);

#endif
