/* CRC-32 (IEEE 802.3, the zlib polynomial) used to frame serial records.
 * Table-free so the guest agent stays tiny; records are short. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC over buf; start with crc = 0. crc32_update(0, "123456789", 9) == 0xcbf43926. */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);
