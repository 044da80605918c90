data "aws_partition" "current" {}
data "aws_region" "current" {}
data "aws_caller_identity" "current" {}

locals {
  log_group_arn = "arn:${data.aws_partition.current.partition}:logs:${data.aws_region.current.name}:${data.aws_caller_identity.current.account_id}:log-group:/aws/lambda/${var.function_name}"
}

resource "aws_cloudwatch_log_group" "this" {
  name              = "/aws/lambda/${var.function_name}"
  retention_in_days = var.log_retention_days
}

data "aws_iam_policy_document" "assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "this" {
  name               = "${var.function_name}-function"
  assume_role_policy = data.aws_iam_policy_document.assume.json
}

# Only into its own log group: the group exists before the function, so no logs:CreateLogGroup.
data "aws_iam_policy_document" "logs" {
  statement {
    sid       = "WriteOwnLogs"
    actions   = ["logs:CreateLogStream", "logs:PutLogEvents"]
    resources = ["${local.log_group_arn}:log-stream:*"]
  }
}

resource "aws_iam_role_policy" "logs" {
  name   = "logs"
  role   = aws_iam_role.this.id
  policy = data.aws_iam_policy_document.logs.json
}

resource "aws_iam_role_policy" "function" {
  name   = "function"
  role   = aws_iam_role.this.id
  policy = var.policy_json
}

resource "aws_iam_role_policy_attachment" "managed" {
  for_each   = toset(var.managed_policy_arns)
  role       = aws_iam_role.this.name
  policy_arn = each.value
}

resource "aws_s3_object" "package" {
  bucket      = var.artifact_bucket
  key         = "functions/${var.function_name}/${filesha256(var.package_path)}.zip"
  source      = var.package_path
  source_hash = filemd5(var.package_path)
}

resource "aws_lambda_function" "this" {
  function_name    = var.function_name
  description      = var.description
  role             = aws_iam_role.this.arn
  handler          = var.handler
  runtime          = var.runtime
  architectures    = [var.architecture]
  memory_size      = var.memory_mb
  timeout          = var.timeout_seconds
  s3_bucket        = aws_s3_object.package.bucket
  s3_key           = aws_s3_object.package.key
  source_code_hash = filebase64sha256(var.package_path)
  # SnapStart snapshots a published version; without it nothing is published and triggers call $LATEST.
  publish = var.snap_start

  dynamic "snap_start" {
    for_each = var.snap_start ? [1] : []
    content {
      apply_on = "PublishedVersions"
    }
  }

  vpc_config {
    subnet_ids         = var.subnet_ids
    security_group_ids = var.security_group_ids
  }

  environment {
    variables = merge(var.environment, var.runtime == "provided.al2023" ? {
      # Native: as Quarkus's generated sam.native.yaml sets it for Lambda.
      DISABLE_SIGNAL_HANDLERS = "true"
      } : {
      # JVM: stopping at the C1 compiler is the usual Lambda cold-start trade-off.
      JAVA_TOOL_OPTIONS = "-XX:+TieredCompilation -XX:TieredStopAtLevel=1"
    })
  }

  logging_config {
    log_format = "Text"
    log_group  = aws_cloudwatch_log_group.this.name
  }

  depends_on = [
    aws_iam_role_policy.logs,
    aws_iam_role_policy.function,
    aws_iam_role_policy_attachment.managed,
  ]
}

# What triggers invoke when SnapStart is on: always the version this apply published.
resource "aws_lambda_alias" "live" {
  count            = var.snap_start ? 1 : 0
  name             = "live"
  description      = "The version published by the last deploy (SnapStart applies to published versions only)"
  function_name    = aws_lambda_function.this.function_name
  function_version = aws_lambda_function.this.version
}
