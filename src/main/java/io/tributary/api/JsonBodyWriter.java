package io.tributary.api;

import io.tributary.registry.view.JsonBody;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveResourceInfo;
import org.jboss.resteasy.reactive.server.spi.ServerMessageBodyWriter;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

/** Sends a body the registry wrote as JSON as it is, without passing it through Jackson again. */
@Provider
@Produces(MediaType.APPLICATION_JSON)
public class JsonBodyWriter implements ServerMessageBodyWriter<JsonBody> {
    @Override
    public boolean isWriteable(Class<?> type, Type genericType, ResteasyReactiveResourceInfo target,
            MediaType mediaType) {
        return JsonBody.class.isAssignableFrom(type);
    }

    @Override
    public void writeResponse(JsonBody body, Type genericType, ServerRequestContext context) {
        context.serverResponse().end(body.utf8());
    }

    @Override
    public boolean isWriteable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return JsonBody.class.isAssignableFrom(type);
    }

    @Override
    public void writeTo(JsonBody body, Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType,
            MultivaluedMap<String, Object> httpHeaders, OutputStream out) throws IOException {
        out.write(body.utf8());
    }
}
