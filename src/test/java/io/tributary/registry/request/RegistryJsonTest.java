package io.tributary.registry.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RegistryJsonTest {

    record Inner(String json_schema) {}

    record Body(String name, Map<String, Inner> schemas) {}

    @Test
    void aLineBreakInsideAStringIsNamedWithTheFieldAndTheFix() {
        // A schema string pasted over two lines, as the README's walk-through once was by mistake.
        String body = "{\"name\": \"s\", \"schemas\": {\"payload\": {\"json_schema\":\n \"{\\\"type\\\":\n"
                + "\\\"object\\\"}\"}}}";
        ApiException e = catchThrowableOfType(ApiException.class, () -> RegistryJson.parse(body, Body.class));
        assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_REQUEST);
        assertThat(e.getMessage()).startsWith("the request body is not valid JSON in schemas.payload.json_schema")
                .contains("(line 2, column", "raw control character", "keep the string on one line")
                .doesNotContain("Exception", "jackson");
    }

    @Test
    void brokenJsonOutsideAnyFieldSaysWhere() {
        ApiException e = catchThrowableOfType(ApiException.class,
                () -> RegistryJson.parse("{\"name\": \"s\",\n \"schemas\": }", Body.class));
        assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_REQUEST);
        assertThat(e.getMessage()).startsWith("the request body is not valid JSON").contains("(line 2, column")
                .endsWith("send a JSON object");
    }
}
