# Turns a file into a C array (cmake -DIN=file -DOUT=file.c -DNAME=sym -P
# embed.cmake): `const char NAME[]` (NUL-terminated) and `NAME_len`.  The
# report page (interp/report_page.html) is kept as a normal HTML file and
# compiled in this way, so nobody escapes it by hand.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" hex "${hex}")
file(WRITE ${OUT}.tmp "/* Generated from ${IN} by cmake/embed.cmake: do not edit. */\n#include <stddef.h>\nconst unsigned char ${NAME}[] = {\n${hex}0};\nconst size_t ${NAME}_len = sizeof ${NAME} - 1;\n")
file(RENAME ${OUT}.tmp ${OUT})
