package io.tributary.runtime.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;

/**
 * The backfill function: each scheduled tick runs the overlap check of every stream with a backfill source, merges
 * those that are ready (SPEC 5) and compacts small files (SPEC 4). Only the schedule may invoke it.
 */
public class BackfillHandler implements RequestHandler<ScheduledEvent, String> {

    static final String SCHEDULER_SOURCE = "tributary.scheduler";
    static final String EVENTS_SOURCE = "aws.events";

    @Override
    public String handleRequest(ScheduledEvent event, Context context) {
        if (event == null || !(SCHEDULER_SOURCE.equals(event.source()) || EVENTS_SOURCE.equals(event.source()))) {
            throw new IllegalArgumentException("source is '" + (event == null ? null : event.source())
                    + "'; backfill runs only from its schedule (source '" + SCHEDULER_SOURCE + "' or '"
                    + EVENTS_SOURCE + "')");
        }
        // Lead: run the backfill core here (check every stream, merge the ready ones, compact) and return its summary.
        throw new IllegalStateException("backfill core not wired into the Lambda handler yet");
    }
}
