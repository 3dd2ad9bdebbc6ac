/**
 * Memory-mapped files, the page cache of segments and indexes: {@link dev.samsa.log.store.MappedStore}, one growable
 * file mapped in 1 MiB chunks, on chronicle-bytes ({@link dev.samsa.log.store.ChronicleMappedStore}) where the JVM
 * was started with the flags it needs, else on {@code FileChannel.map} ({@link dev.samsa.log.store.JdkMappedStore});
 * {@link dev.samsa.log.store.MappedStores} picks one and names the flags. Writes land in the mapping and survive a
 * process crash; {@code flush} forces them to disk. A {@code read} returns a heap copy; a {@code view}
 * ({@link dev.samsa.log.store.StoreView}) shows the bytes in place until released. A chunk is mapped through a channel
 * closed at once, so a store holds no file descriptor. {@link dev.samsa.log.store.PreparedStore} makes a file and its
 * first chunk ahead of its first write on a JVM-wide background thread.
 */
package dev.samsa.log.store;
