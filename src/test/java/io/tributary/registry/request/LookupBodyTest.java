package io.tributary.registry.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The lookup body's one-pass read gives what the strict mapper gives, or leaves the body to it. */
class LookupBodyTest {

    static SyncedTableRequests.Lookup plain(String json) {
        return SyncedTableRequests.Lookup.plain(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void plainBodiesReadAsTheMapperReadsThem() {
        for (String body : new String[] {
                "{\"keys\": [{\"value_user_id\": \"u1\"}]}",
                " {\"keys\":[{\"a\":\"x\",\"b\":7},{\"a\":null,\"b\":9007199254740993},{\"a\":\"\\u00e9\\n\",\"b\":"
                        + "123456789012345678901234567890}]} ",
                "{\"keys\": [{\"flag\": true}, {\"flag\": false}, null, {}]}",
                "{\"keys\": []}"}) {
            assertThat(plain(body)).as(body).isEqualTo(RegistryJson.parse(body, SyncedTableRequests.Lookup.class));
        }
        assertThat(plain("{\"keys\": [{\"b\": 7}]}").keys().get(0).get("b")).isInstanceOf(Integer.class);
    }

    @Test
    void anythingElseIsLeftToTheMapperAndItsMessages() {
        for (String body : new String[] {"", "[]", "{}", "{\"keys\": null}", "{\"keys\": [], \"other\": 1}",
                "{\"other\": 1, \"keys\": []}", "{\"keys\": [{\"a\": 1.5}]}", "{\"keys\": [{\"a\": [1]}]}",
                "{\"keys\": [{\"a\": {\"b\": 1}}]}", "{\"keys\": [{\"a\": 1, \"a\": 2}]}", "{\"keys\": [\"u1\"]}",
                "{\"keys\": [{\"a\": 1}]} trailing", "{\"keys\": [{\"a\": 1}]", "{\"keys\": [{\"a\": 1]}"}) {
            assertThat(plain(body)).as(body).isNull();
        }
    }
}
