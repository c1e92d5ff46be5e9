/* crc32.c: bitwise CRC-32 (see crc32.h). */
#include "common/crc32.h"

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len) {
        const unsigned char *p = buf;

        crc = ~crc;
        while (len--) {
                crc ^= *p++;
                for (int k = 0; k < 8; k++)
                        crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
        }
        return ~crc;
}
