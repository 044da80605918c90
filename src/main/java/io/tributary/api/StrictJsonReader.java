package io.tributary.api;

import io.tributary.registry.request.ApiRequest;
import io.tributary.registry.request.RegistryJson;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveResourceInfo;
import org.jboss.resteasy.reactive.server.spi.ServerMessageBodyReader;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

/**
 * Binds request bodies ({@link ApiRequest} records) with the registry's strict mapper, so a bad body is answered with
 * the SPEC 2 error naming the field ({@code MALFORMED_REQUEST} for a body that is no JSON object,
 * {@code INVALID_PARAMETER_VALUE} for an unknown or mistyped field). Any content type is read as JSON, as the API
 * always did: a body sent as text/plain is judged by what it holds.
 */
@Provider
@Consumes(MediaType.WILDCARD)
public class StrictJsonReader implements ServerMessageBodyReader<Object> {

    @Override
    public boolean isReadable(Class<?> type, Type genericType, ResteasyReactiveResourceInfo method,
            MediaType mediaType) {
        return ApiRequest.class.isAssignableFrom(type);
    }

    @Override
    public Object readFrom(Class<Object> type, Type genericType, MediaType mediaType, ServerRequestContext context)
            throws IOException {
        return read(type, context.getInputStream());
    }

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return ApiRequest.class.isAssignableFrom(type);
    }

    @Override
    public Object readFrom(Class<Object> type, Type genericType, Annotation[] annotations, MediaType mediaType,
            MultivaluedMap<String, String> headers, InputStream body) throws IOException {
        return read(type, body);
    }

    private static Object read(Class<Object> type, InputStream body) throws IOException {
        return RegistryJson.parse(body == null ? "" : new String(body.readAllBytes(),
                java.nio.charset.StandardCharsets.UTF_8), type);
    }
}
