package io.tributary.schema;

/** Fetching a writer schema while decoding: an unknown id is a bad message, an unreachable registry is not. */
final class RegistrySchemas {
    private RegistrySchemas() {}

    static RegistryClient.RegisteredSchema fetch(RegistryClient client, int id) throws DecodeException {
        try {
            return client.byId(id);
        } catch (SchemaRegistryException e) {
            if (e.kind() == SchemaRegistryException.Kind.NOT_FOUND) {
                throw new DecodeException("schema id " + id + " is not in the schema registry");
            }
            throw new SchemaRegistryUnavailableException(e.getMessage());
        }
    }
}
