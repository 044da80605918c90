# The functions' own permissions. Every statement names its resources by ARN; none uses a wildcard action or the
# "*" resource (TerraformTest checks). Where an action IAM cannot scope is unavoidable, the AWS-managed policy is
# attached instead (see function_managed_policies in functions.tf).

locals {
  warehouse_tables  = "${aws_s3_bucket.warehouse.arn}/warehouse/*"
  ingest_alias_arns = "${local.function_arns["ingest"]}:${local.ingest_alias_prefix}*"
  kafka_secrets_arn = "arn:${local.partition}:secretsmanager:${local.region}:${local.account_id}:secret:${local.kafka_secret_prefix}*"

  msk_topic_arns = [for c in var.msk_cluster_arns : "${replace(c, ":cluster/", ":topic/")}/*"]
  msk_group_arns = [for c in var.msk_cluster_arns : "${replace(c, ":cluster/", ":group/")}/*"]

  backfill_source_objects = [for b in var.backfill_source_bucket_arns : "${b}/*"]

  kms_via_services = [
    "s3.${local.region}.amazonaws.com",
    "secretsmanager.${local.region}.amazonaws.com",
  ]
}

data "aws_iam_policy_document" "stream_api" {
  statement {
    sid       = "ReadDeploymentSecrets"
    actions   = ["secretsmanager:GetSecretValue"]
    resources = [module.database.secret_arn, aws_secretsmanager_secret.secrets_key.arn]
  }

  statement {
    sid       = "UseTheKeyThroughS3AndSecretsManager"
    actions   = ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey"]
    resources = [aws_kms_key.tributary.arn]
    condition {
      test     = "StringEquals"
      variable = "kms:ViaService"
      values   = local.kms_via_services
    }
  }

  statement {
    sid       = "ListWarehouse"
    actions   = ["s3:ListBucket"]
    resources = [aws_s3_bucket.warehouse.arn]
  }

  # Create checks the destination does not exist; delete removes the ingestion table's files and log.
  statement {
    sid       = "ManageTables"
    actions   = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"]
    resources = [local.warehouse_tables]
  }

  # One event source mapping per stream and topic, always pointing at that stream's alias of ingest.
  statement {
    sid = "ManageIngestEventSourceMappings"
    actions = [
      "lambda:CreateEventSourceMapping",
      "lambda:GetEventSourceMapping",
      "lambda:UpdateEventSourceMapping",
      "lambda:DeleteEventSourceMapping",
    ]
    resources = ["arn:${local.partition}:lambda:${local.region}:${local.account_id}:event-source-mapping:*"]
    condition {
      test     = "ArnLike"
      variable = "lambda:FunctionArn"
      values   = [local.ingest_alias_arns]
    }
  }

  statement {
    sid       = "ManageIngestStreamAliases"
    actions   = ["lambda:CreateAlias", "lambda:GetAlias", "lambda:UpdateAlias", "lambda:DeleteAlias"]
    resources = [local.function_arns["ingest"], local.ingest_alias_arns]
  }

  # A SASL connection's credentials must be in Secrets Manager for the event source mapping to use them.
  statement {
    sid = "ManageKafkaCredentials"
    actions = [
      "secretsmanager:CreateSecret",
      "secretsmanager:PutSecretValue",
      "secretsmanager:DescribeSecret",
      "secretsmanager:DeleteSecret",
      "secretsmanager:TagResource",
    ]
    resources = [local.kafka_secrets_arn]
  }

  # Creating a stream reads the end offsets of its partitions (SPEC 4, start position) and its status the lag.
  dynamic "statement" {
    for_each = length(var.msk_cluster_arns) > 0 ? ["msk"] : []
    content {
      sid       = "DescribeMskClusters"
      actions   = ["kafka:DescribeClusterV2", "kafka:GetBootstrapBrokers", "kafka-cluster:Connect"]
      resources = var.msk_cluster_arns
    }
  }

  dynamic "statement" {
    for_each = length(var.msk_cluster_arns) > 0 ? ["msk"] : []
    content {
      sid       = "DescribeMskTopics"
      actions   = ["kafka-cluster:DescribeTopic"]
      resources = local.msk_topic_arns
    }
  }

  # Create checks that a backfill source has a stream_record_timestamp column (SPEC 5).
  dynamic "statement" {
    for_each = length(var.backfill_source_bucket_arns) > 0 ? ["backfill"] : []
    content {
      sid       = "ReadBackfillSourceLogs"
      actions   = ["s3:ListBucket", "s3:GetObject"]
      resources = concat(var.backfill_source_bucket_arns, local.backfill_source_objects)
    }
  }
}

data "aws_iam_policy_document" "ingest" {
  statement {
    sid       = "ReadDeploymentSecrets"
    actions   = ["secretsmanager:GetSecretValue"]
    resources = [module.database.secret_arn, aws_secretsmanager_secret.secrets_key.arn]
  }

  # The event source mappings authenticate to SASL clusters with these, using this role.
  statement {
    sid       = "ReadKafkaCredentials"
    actions   = ["secretsmanager:GetSecretValue"]
    resources = [local.kafka_secrets_arn]
  }

  statement {
    sid       = "UseTheKeyThroughS3AndSecretsManager"
    actions   = ["kms:Decrypt", "kms:GenerateDataKey"]
    resources = [aws_kms_key.tributary.arn]
    condition {
      test     = "StringEquals"
      variable = "kms:ViaService"
      values   = local.kms_via_services
    }
  }

  statement {
    sid       = "ListWarehouse"
    actions   = ["s3:ListBucket"]
    resources = [aws_s3_bucket.warehouse.arn]
  }

  # Data files and commits are new objects. Delete only for data files of a batch it will not commit: the write
  # fence found the stream deleted under the invocation, or one part of a parallel batch failed (without it they
  # stayed under the deleted stream's location). Committed files are never deleted by ingest: vacuum is backfill's.
  statement {
    sid       = "AppendToTablesRemoveUncommittedFiles"
    actions   = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"]
    resources = [local.warehouse_tables]
  }

  # MSK with IAM authentication: what a consumer in a group needs, for the configured clusters only.
  dynamic "statement" {
    for_each = length(var.msk_cluster_arns) > 0 ? ["msk"] : []
    content {
      sid       = "ConnectToMsk"
      actions   = ["kafka-cluster:Connect", "kafka-cluster:DescribeClusterDynamicConfiguration"]
      resources = var.msk_cluster_arns
    }
  }

  dynamic "statement" {
    for_each = length(var.msk_cluster_arns) > 0 ? ["msk"] : []
    content {
      sid       = "ReadMskTopics"
      actions   = ["kafka-cluster:DescribeTopic", "kafka-cluster:ReadData"]
      resources = local.msk_topic_arns
    }
  }

  dynamic "statement" {
    for_each = length(var.msk_cluster_arns) > 0 ? ["msk"] : []
    content {
      sid       = "UseMskConsumerGroups"
      actions   = ["kafka-cluster:DescribeGroup", "kafka-cluster:AlterGroup"]
      resources = local.msk_group_arns
    }
  }
}

data "aws_iam_policy_document" "backfill" {
  statement {
    sid       = "ReadDeploymentSecrets"
    actions   = ["secretsmanager:GetSecretValue"]
    resources = [module.database.secret_arn, aws_secretsmanager_secret.secrets_key.arn]
  }

  statement {
    sid       = "UseTheKeyThroughS3AndSecretsManager"
    actions   = ["kms:Decrypt", "kms:GenerateDataKey"]
    resources = [aws_kms_key.tributary.arn]
    condition {
      test     = "StringEquals"
      variable = "kms:ViaService"
      values   = local.kms_via_services
    }
  }

  statement {
    sid       = "ListWarehouse"
    actions   = ["s3:ListBucket"]
    resources = [aws_s3_bucket.warehouse.arn]
  }

  # Merge commits, checkpoints, compaction (replaces small files with larger ones) and vacuum (deletes data files no
  # reader needs).
  statement {
    sid       = "MergeAndCompactTables"
    actions   = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"]
    resources = [local.warehouse_tables]
  }

  # Each tick maps the topics that started to match a subscribe_pattern stream and unmaps deleted ones, always on the
  # stream's alias of ingest. It neither waits for a deletion (no Get) nor touches aliases: stream-api owns those.
  statement {
    sid       = "AddAndRemoveIngestEventSourceMappings"
    actions   = ["lambda:CreateEventSourceMapping", "lambda:DeleteEventSourceMapping"]
    resources = ["arn:${local.partition}:lambda:${local.region}:${local.account_id}:event-source-mapping:*"]
    condition {
      test     = "ArnLike"
      variable = "lambda:FunctionArn"
      values   = [local.ingest_alias_arns]
    }
  }

  # A new mapping of a SASL stream names the credentials secret stream-api created; backfill only looks up its ARN.
  statement {
    sid       = "FindKafkaCredentials"
    actions   = ["secretsmanager:DescribeSecret"]
    resources = [local.kafka_secrets_arn]
  }

  # Re-resolving a pattern lists the cluster's topics, as creating the stream did.
  dynamic "statement" {
    for_each = length(var.msk_cluster_arns) > 0 ? ["msk"] : []
    content {
      sid       = "ConnectToMsk"
      actions   = ["kafka-cluster:Connect"]
      resources = var.msk_cluster_arns
    }
  }

  dynamic "statement" {
    for_each = length(var.msk_cluster_arns) > 0 ? ["msk"] : []
    content {
      sid       = "DescribeMskTopics"
      actions   = ["kafka-cluster:DescribeTopic"]
      resources = local.msk_topic_arns
    }
  }

  dynamic "statement" {
    for_each = length(var.backfill_source_bucket_arns) > 0 ? ["backfill"] : []
    content {
      sid       = "ReadBackfillSources"
      actions   = ["s3:ListBucket", "s3:GetObject"]
      resources = concat(var.backfill_source_bucket_arns, local.backfill_source_objects)
    }
  }
}
