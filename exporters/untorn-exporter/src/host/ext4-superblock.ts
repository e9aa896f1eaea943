/** The ext2/3/4 superblock fields that decide how InnoDB pages are allocated (docs/reference/atomic-storage.md §8.2, §8.4, §8.7). */
export interface Ext4Superblock {
  blockSize: number;
  /** Allocation unit: the cluster with bigalloc, else the block size. */
  clusterSize: number;
  bigalloc: boolean;
}

/** The primary superblock starts 1024 bytes into the device, whatever the block size. */
export const SUPERBLOCK_OFFSET = 1024;
export const SUPERBLOCK_SIZE = 1024;
export const EXT4_MAGIC = 0xef53;
export const RO_COMPAT_BIGALLOC = 0x200;

// Offsets within the superblock (kernel fs/ext4/ext4.h struct ext4_super_block), little endian.
const S_LOG_BLOCK_SIZE = 0x18;
const S_LOG_CLUSTER_SIZE = 0x1c;
const S_MAGIC = 0x38;
const S_FEATURE_RO_COMPAT = 0x64;

/**
 * Parses the 1024-byte superblock (the bytes at SUPERBLOCK_OFFSET of the device). Undefined when the
 * buffer is short, the magic is not 0xEF53, or the sizes are out of range.
 */
export function parseExt4Superblock(buf: Buffer): Ext4Superblock | undefined {
  if (buf.length < S_FEATURE_RO_COMPAT + 4) return undefined;
  if (buf.readUInt16LE(S_MAGIC) !== EXT4_MAGIC) return undefined;
  const logBlock = buf.readUInt32LE(S_LOG_BLOCK_SIZE);
  const bigalloc = (buf.readUInt32LE(S_FEATURE_RO_COMPAT) & RO_COMPAT_BIGALLOC) !== 0;
  // Without bigalloc s_log_cluster_size is meaningless on old file systems; the cluster is the block.
  const logCluster = bigalloc ? buf.readUInt32LE(S_LOG_CLUSTER_SIZE) : logBlock;
  // The kernel refuses to mount s_log_block_size > 6 (64 KiB), s_log_cluster_size > 20 (1 GiB) or a
  // cluster smaller than the block (fs/ext4/super.c, EXT4_MAX_{BLOCK,CLUSTER}_LOG_SIZE 16/30).
  if (logBlock > 6 || logCluster > 20 || logCluster < logBlock) return undefined;
  return { blockSize: 1024 * 2 ** logBlock, clusterSize: 1024 * 2 ** logCluster, bigalloc };
}
