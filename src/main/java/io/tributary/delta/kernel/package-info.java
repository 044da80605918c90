/**
 * The one door into Delta Kernel's internal classes ({@code io.delta.kernel.internal}). Kernel changes them without
 * notice, so the rest of {@code io.tributary.delta} speaks only Kernel's public API plus these small adapters; a
 * Kernel upgrade that moves an internal class breaks this package alone.
 */
package io.tributary.delta.kernel;
