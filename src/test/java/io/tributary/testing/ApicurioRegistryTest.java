package io.tributary.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApicurioRegistryTest {

    @Test
    void registersASchemaAndKeepsItAcrossRestart(@TempDir Path dir) throws Exception {
        assumeTrue(ApicurioRegistry.unavailableReason().isEmpty(), () -> ApicurioRegistry.unavailableReason().get());
        HttpClient http = HttpClient.newHttpClient();
        try (ApicurioRegistry registry = ApicurioRegistry.start(dir)) {
            String body = "{\"schema\": \"{\\\"type\\\":\\\"string\\\"}\"}";
            HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(registry.url() + "/subjects/s-value/versions"))
                    .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).isEqualTo(200);
            assertThat(created.body()).contains("\"id\"");

            registry.restart();

            HttpResponse<String> latest = http.send(HttpRequest.newBuilder(URI.create(registry.url() + "/subjects/s-value/versions/latest"))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(latest.statusCode()).isEqualTo(200);
            assertThat(latest.body()).contains("\"subject\":\"s-value\"");
        }
    }
}
