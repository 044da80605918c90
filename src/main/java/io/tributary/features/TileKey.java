package io.tributary.features;

/** One tile of one feature of one entity; {@code entity} is the entity's canonical key text ({@link EntityKeys}). */
record TileKey(String entity, int feature, long start) {
    /**
     * Mixed rather than the record's 31-based sum: entities like {@code ["k1"]}, {@code ["k2"]} and tile starts a fixed
     * step apart gave a round's million tiles so many equal hashes that most lookups walked HashMap's tree bins.
     */
    @Override
    public int hashCode() {
        long h = entity.hashCode() * 0x9E3779B97F4A7C15L + start * 0xC2B2AE3D27D4EB4FL + feature;
        h = (h ^ (h >>> 31)) * 0xBF58476D1CE4E5B9L;
        return (int) (h ^ (h >>> 32));
    }

    /** Entity, then feature, then start: the order a round's final windows are produced in. */
    static int compare(TileKey a, TileKey b) {
        // a record's tiles share its entity's string
        int c = a.entity == b.entity ? 0 : a.entity.compareTo(b.entity);
        if (c != 0) {
            return c;
        }
        c = Integer.compare(a.feature, b.feature);
        return c != 0 ? c : Long.compare(a.start, b.start);
    }
}
