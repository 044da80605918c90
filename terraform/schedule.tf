# backfill on its schedule (its trigger: function.trigger=schedule), with the constant input of its
# function.properties: an event the function reads with its own ScheduledEvent type.

data "aws_iam_policy_document" "scheduler_assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["scheduler.amazonaws.com"]
    }
    condition {
      test     = "StringEquals"
      variable = "aws:SourceAccount"
      values   = [local.account_id]
    }
  }
}

resource "aws_iam_role" "scheduler" {
  name               = "${var.name}-scheduler"
  assume_role_policy = data.aws_iam_policy_document.scheduler_assume.json
}

data "aws_iam_policy_document" "scheduler" {
  statement {
    sid       = "InvokeBackfill"
    actions   = ["lambda:InvokeFunction"]
    resources = [module.function["backfill"].target_arn]
  }
}

resource "aws_iam_role_policy" "scheduler" {
  name   = "invoke-backfill"
  role   = aws_iam_role.scheduler.id
  policy = data.aws_iam_policy_document.scheduler.json
}

resource "aws_scheduler_schedule" "backfill" {
  name                = "${var.name}-backfill"
  description         = "Tributary backfill overlap check, merge and compaction"
  schedule_expression = local.functions["backfill"].properties["function.trigger.schedule"]
  state               = "ENABLED"

  flexible_time_window {
    mode = "OFF"
  }

  target {
    arn      = module.function["backfill"].target_arn
    role_arn = aws_iam_role.scheduler.arn
    # Round-trip through jsondecode so a malformed input fails the plan, not the first tick.
    input = jsonencode(jsondecode(local.functions["backfill"].properties["function.trigger.input"]))

    retry_policy {
      maximum_retry_attempts       = 0
      maximum_event_age_in_seconds = 60
    }
  }
}
