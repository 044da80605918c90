package io.tributary.registry.service;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.RowRewrites;
import io.tributary.delta.TableChangedException;
import io.tributary.delta.Tables;
import io.tributary.ingest.RescuedRecords;
import io.tributary.registry.lock.StreamWriteLocks;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.ErrorCode;
import io.tributary.registry.request.Names;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.StreamChecks;
import io.tributary.registry.request.StreamDefinition;
import io.tributary.registry.view.StreamReads;
import io.tributary.schema.InvalidSchemaException;
import io.tributary.schema.SchemaRegistryUnavailableException;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rescued records of a stream (SPEC "Rescued records"): listing them needs SELECT or MANAGE on the ingestion
 * table, as reading the table does; a replay rewrites the table's files, so it needs MANAGE (MODIFY only lets a
 * producer append, SPEC "Direct ingest").
 */
@ApplicationScoped
public class RescueService {
    @Inject
    Tables tables;
    @Inject
    StreamReads reads;
    @Inject
    StreamSources sources;
    @Inject
    StreamWriteLocks writeLocks;

    /** A stream as these calls need it. */
    private record Target(String streamId, String fullName, String location, StreamChecks.Checked checked) {
        boolean rescues() {
            return checked.rescueUndecodable();
        }
    }

    public Uni<Map<String, Object>> list(Principal caller, String nameParam, Integer maxResultsParam,
            String pageToken) {
        int maxResults = maxResultsParam == null ? 50 : maxResultsParam;
        if (maxResults < 1 || maxResults > 1000) {
            throw ApiException.invalid("max_results", maxResults + " is out of range; use 1 to 1000");
        }
        RescuedRecords.After after = pageToken == null || pageToken.isEmpty() ? null : decodeToken(pageToken);
        return target(caller, nameParam, false).flatMap(t -> Blocking.call(() -> {
            Map<String, Object> body = new LinkedHashMap<>();
            if (!t.rescues()) {
                body.put("rescued_records", List.of());
                return body;
            }
            RescuedRecords.Page page = RescuedRecords.page(tables.open(t.location()), maxResults, after);
            Base64.Encoder b64 = Base64.getEncoder();
            body.put("rescued_records", page.records().stream().map(r -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("topic", r.topic());
                m.put("partition", r.partition());
                m.put("offset", r.offset());
                if (r.timestamp() != null) {
                    m.put("timestamp", io.tributary.registry.view.StreamViews.time(r.timestamp()));
                }
                m.put("key_base64", r.key() == null ? null : b64.encodeToString(r.key()));
                m.put("value_base64", r.value() == null ? null : b64.encodeToString(r.value()));
                m.put("error", r.error());
                return m;
            }).toList());
            page.next().ifPresent(n -> body.put("next_page_token", encodeToken(n)));
            return body;
        }));
    }

    public Uni<Map<String, Object>> replay(Principal caller, String nameParam) {
        return target(caller, nameParam, true).flatMap(t -> {
            if (!t.rescues()) {
                throw ApiException.invalid("name", "stream '" + t.fullName() + "' does not rescue undecodable "
                        + "records, so it has none to replay; create it with ingestion_config.rescue_undecodable "
                        + "true to keep them");
            }
            // The schema sources with the registry's secret decrypted, as the stream's pipelines get them.
            return Panache.withSession(() -> sources.resolve(t.checked(), null))
                    .flatMap(resolved -> Blocking.call(() -> replay(t, resolved)));
        });
    }

    private Map<String, Object> replay(Target t, StreamSources.Resolved spec) {
        RescuedRecords.Replay result;
        try {
            StreamSchema schema = StreamSchema.of(
                    SideSchema.compileExisting(spec.key(), "schema_config.key_schema"),
                    SideSchema.compileExisting(spec.value(), "schema_config.payload_schema"), true);
            DeltaTable table = tables.open(t.location());
            result = RescuedRecords.replay(table, schema, writeLocks.forStream(t.streamId(), t.location()));
        } catch (SchemaRegistryUnavailableException e) {
            throw new ApiException(ErrorCode.TEMPORARILY_UNAVAILABLE, "the stream's schema registry did not answer: "
                    + e.getMessage() + "; nothing was replayed, retry later");
        } catch (InvalidSchemaException e) {
            throw new ApiException(ErrorCode.RESOURCE_CONFLICT, "the stream's schema cannot be compiled now ("
                    + e.getMessage() + "); nothing was replayed");
        } catch (IllegalStateException | IllegalArgumentException e) {
            // No version of the schema can write the table (a registry subject changed incompatibly).
            throw new ApiException(ErrorCode.RESOURCE_CONFLICT, e.getMessage() + "; nothing was replayed");
        } catch (TableChangedException e) {
            throw new ApiException(ErrorCode.RESOURCE_CONFLICT, "the table's files were rewritten by another writer "
                    + "(compaction) during each attempt; nothing was replayed, retry");
        } catch (RowRewrites.StreamGoneException e) {
            throw ApiException.notFound("stream '" + t.fullName() + "' was deleted meanwhile; nothing was replayed");
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("records_replayed", result.replayed());
        body.put("records_still_undecodable", result.stillUndecodable());
        body.put("table_version", result.tableVersion());
        return body;
    }

    /** The stream, once the caller is known to hold {@code MANAGE} (or, when {@code manage} is false, SELECT). */
    private Uni<Target> target(Principal caller, String nameParam, boolean manage) {
        String fullName = Names.fullName("name", nameParam);
        return reads.one(fullName, caller.name()).map(found -> {
            if (found == null) {
                throw ApiException.notFound("stream '" + fullName + "' does not exist");
            }
            String table = found.stream().tableName;
            if (manage || !AccessPolicy.allows(caller, found.tableOwner(), found.privileges(), Privilege.MANAGE)) {
                AccessPolicy.require(caller, found.tableOwner(), found.privileges(),
                        manage ? Privilege.MANAGE : Privilege.SELECT, "table", table);
            }
            StreamChecks.Checked checked = StreamChecks.check(RegistryJson.read(found.stream().definition,
                    StreamDefinition.class));
            return new Target(found.stream().id, fullName, found.tableLocation(), checked);
        });
    }

    private static String encodeToken(RescuedRecords.After after) {
        String text = "r:" + after.partition() + ":" + after.offset() + ":" + after.topic();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static RescuedRecords.After decodeToken(String token) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            String[] parts = text.split(":", 4);
            if (parts.length == 4 && parts[0].equals("r")) {
                return new RescuedRecords.After(parts[3], Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
            }
        } catch (IllegalArgumentException e) {
            // fall through
        }
        throw ApiException.invalid("page_token", "is not a token this server issued; pass next_page_token "
                + "from the previous response unchanged");
    }
}
