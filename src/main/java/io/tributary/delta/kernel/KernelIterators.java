package io.tributary.delta.kernel;

import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.utils.CloseableIterator;
import java.util.Iterator;

/** Kernel's own adapters to its CloseableIterator, which its public API takes but does not offer. */
public final class KernelIterators {
    private KernelIterators() {
    }

    public static <T> CloseableIterator<T> of(Iterator<T> it) {
        return Utils.toCloseableIterator(it);
    }

    public static <T> CloseableIterator<T> singleton(T element) {
        return Utils.singletonCloseableIterator(element);
    }
}
