# The three Lambda functions, each configured by function-configs/<name>/function.properties: the same file the
# Maven build reads for -Dfunction=<name>, so handler, memory, timeout and environment cannot drift apart.
#
# The properties format is kept to plain `key=value` lines (no escapes, no continuations; TerraformTest checks),
# which is exactly what this parser reads the same way java.util.Properties does.

locals {
  function_config_dir = "${path.module}/../function-configs"
  function_names      = toset([for f in fileset(local.function_config_dir, "*/function.properties") : dirname(f)])

  # tomap: every function's settings get the same type (maps of strings), as for_each over them requires.
  function_properties = {
    for name in local.function_names : name => tomap({
      for line in split("\n", file("${local.function_config_dir}/${name}/function.properties")) :
      trimspace(split("=", line)[0]) => trimspace(join("=", slice(split("=", line), 1, length(split("=", line)))))
      if length(regexall("^[A-Za-z0-9._-]+=", trimspace(line))) > 0
    })
  }

  functions = {
    for name, p in local.function_properties : name => {
      description     = p["function.description"]
      handler         = p["function.handler"]
      memory_mb       = tonumber(p["function.memory-mb"])
      timeout_seconds = tonumber(p["function.timeout-seconds"])
      trigger         = p["function.trigger"]
      properties      = p
      environment     = tomap({ for k, v in p : trimprefix(k, "function.env.") => v if startswith(k, "function.env.") })
    }
  }

  # Built from names, not from module outputs, so one function's settings can name another without a cycle.
  function_names_by_config = { for name in local.function_names : name => "${var.name}-${name}" }
  function_arns = {
    for name, fn in local.function_names_by_config :
    name => "arn:${local.partition}:lambda:${local.region}:${local.account_id}:function:${fn}"
  }

  # lambda_runtime: native zips run on provided.al2023; JVM zips on java21 (the oldest Java runtime with SnapStart
  # that Quarkus's SnapStart support targets). SnapStart restores a snapshot taken after start-up, so it only applies
  # to published versions: stream-api and backfill are published and invoked through their `live` alias. ingest is
  # invoked through the per-stream aliases stream-api creates at run time on $LATEST, so SnapStart would not apply
  # (README.md, "JVM fallback").
  lambda_runtime       = var.lambda_runtime == "native" ? "provided.al2023" : "java21"
  snap_start_functions = var.lambda_runtime == "jvm" ? toset(["stream-api", "backfill"]) : toset([])

  ingest_alias_prefix = "stream-"
  kafka_secret_prefix = "${var.name}/kafka/"

  # One database URL (SPEC 6): the functions derive their JDBC URL from it and its ssl-mode.
  common_environment = {
    TRIBUTARY_WAREHOUSE                             = "s3://${aws_s3_bucket.warehouse.bucket}/warehouse"
    TRIBUTARY_ADMINS                                = join(",", var.admin_principals)
    TRIBUTARY_AWS_DATABASE_SECRET_ARN               = module.database.secret_arn
    TRIBUTARY_AWS_SECRETS_KEY_SECRET_ARN            = aws_secretsmanager_secret.secrets_key.arn
    QUARKUS_DATASOURCE_REACTIVE_URL                 = "postgresql://${module.database.proxy_endpoint}:5432/${module.database.database_name}"
    QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE = "require"
  }

  # What IngestMappings needs (tributary.aws.*, see IngestMappingSettings): stream-api creates and deletes each stream's
  # event source mappings, and backfill adds and removes those of subscribe_pattern streams on its schedule.
  ingest_mapping_environment = {
    TRIBUTARY_AWS_INGEST_FUNCTION_ARN                = local.function_arns["ingest"]
    TRIBUTARY_AWS_INGEST_ALIAS_PREFIX                = local.ingest_alias_prefix
    TRIBUTARY_AWS_INGEST_BATCH_SIZE                  = local.functions["ingest"].properties["function.trigger.batch-size"]
    TRIBUTARY_AWS_INGEST_MAX_BATCHING_WINDOW_SECONDS = local.functions["ingest"].properties["function.trigger.maximum-batching-window-seconds"]
    TRIBUTARY_AWS_KAFKA_SECRET_PREFIX                = local.kafka_secret_prefix
    TRIBUTARY_AWS_KAFKA_SECRETS_KMS_KEY_ARN          = aws_kms_key.tributary.arn
    TRIBUTARY_AWS_KAFKA_SUBNET_IDS                   = join(",", module.network.private_subnet_ids)
    TRIBUTARY_AWS_MSK_CLUSTER_ARNS                   = join(",", var.msk_cluster_arns)
    TRIBUTARY_AWS_KAFKA_SECURITY_GROUP_ID            = module.network.functions_security_group_id
  }

  # Where stream-api may register tables besides the warehouse (TRIBUTARY_EXTERNAL_LOCATIONS, SPEC 2.4): the backfill
  # source buckets, which iam.tf lets stream-api and backfill read. A stream names its backfill source as a registered
  # table, so without this every backfill source outside the warehouse was refused with a 403.
  external_locations = join(",", [for b in var.backfill_source_bucket_arns : "s3://${element(split(":::", b), 1)}"])

  # Settings one function needs about the others or about the deployment, beyond its own function.properties.
  extra_environment = {
    "stream-api" = merge(local.ingest_mapping_environment, { TRIBUTARY_EXTERNAL_LOCATIONS = local.external_locations })
    "ingest"     = {}
    "backfill"   = local.ingest_mapping_environment
  }

  function_policies = {
    "stream-api" = data.aws_iam_policy_document.stream_api.json
    "ingest"     = data.aws_iam_policy_document.ingest.json
    "backfill"   = data.aws_iam_policy_document.backfill.json
  }

  # AWS-managed policies, attached only where IAM cannot scope the actions to resources (EC2 network interfaces
  # for functions in a VPC, and the Describe calls a Kafka event source mapping makes with the ingest role).
  function_managed_policies = {
    "stream-api" = ["arn:${local.partition}:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole"]
    "ingest" = [
      "arn:${local.partition}:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole",
      "arn:${local.partition}:iam::aws:policy/service-role/AWSLambdaMSKExecutionRole",
    ]
    "backfill" = ["arn:${local.partition}:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole"]
  }
}

module "function" {
  source   = "./modules/function"
  for_each = local.functions

  function_name       = local.function_names_by_config[each.key]
  description         = each.value.description
  handler             = each.value.handler
  memory_mb           = each.value.memory_mb
  timeout_seconds     = each.value.timeout_seconds
  runtime             = local.lambda_runtime
  snap_start          = contains(local.snap_start_functions, each.key)
  architecture        = var.function_architecture
  package_path        = "${var.artifact_dir}/${each.key}/function.zip"
  artifact_bucket     = aws_s3_bucket.artifacts.bucket
  subnet_ids          = module.network.private_subnet_ids
  security_group_ids  = [module.network.functions_security_group_id]
  log_retention_days  = var.log_retention_days
  environment         = merge(local.common_environment, each.value.environment, local.extra_environment[each.key])
  policy_json         = local.function_policies[each.key]
  managed_policy_arns = local.function_managed_policies[each.key]
}
