data "aws_partition" "current" {}
data "aws_region" "current" {}
data "aws_caller_identity" "current" {}

locals {
  partition  = data.aws_partition.current.partition
  region     = data.aws_region.current.name
  account_id = data.aws_caller_identity.current.account_id
}

# One customer-managed key for the registry database, its secrets and the warehouse.
resource "aws_kms_key" "tributary" {
  description         = "Tributary ${var.name}: database, secrets, warehouse"
  enable_key_rotation = true
}

resource "aws_kms_alias" "tributary" {
  name          = "alias/${var.name}"
  target_key_id = aws_kms_key.tributary.key_id
}

# TRIBUTARY_SECRETS_KEY (SPEC 6): the AES-GCM data key for secret values and passwords stored in the registry.
resource "random_bytes" "secrets_key" {
  length = 32
}

resource "aws_secretsmanager_secret" "secrets_key" {
  name_prefix = "${var.name}/secrets-key-"
  description = "Tributary data key (base64, 256 bits) encrypting secrets stored in the registry"
  kms_key_id  = aws_kms_key.tributary.arn
}

resource "aws_secretsmanager_secret_version" "secrets_key" {
  secret_id     = aws_secretsmanager_secret.secrets_key.id
  secret_string = random_bytes.secrets_key.base64
}

module "network" {
  source = "./modules/network"

  name                    = var.name
  vpc_cidr                = var.vpc_cidr
  availability_zone_count = var.availability_zone_count
  enable_nat_gateway      = var.enable_nat_gateway
  interface_endpoints     = var.interface_endpoints
  kafka_ports             = var.kafka_ports
  schema_registry_ports   = var.schema_registry_ports
}

# Kafka clusters in other groups (such as an MSK cluster's) admit the functions on the broker ports.
resource "aws_vpc_security_group_ingress_rule" "kafka_from_functions" {
  for_each = toset(var.kafka_security_group_ids)

  security_group_id            = each.value
  description                  = "Tributary functions and event source mappings"
  ip_protocol                  = "tcp"
  from_port                    = var.kafka_ports.from
  to_port                      = var.kafka_ports.to
  referenced_security_group_id = module.network.functions_security_group_id
}

module "database" {
  source = "./modules/database"

  name                     = var.name
  vpc_id                   = module.network.vpc_id
  subnet_ids               = module.network.private_subnet_ids
  client_security_group_id = module.network.functions_security_group_id
  kms_key_arn              = aws_kms_key.tributary.arn
  engine_version           = var.db_engine_version
  min_capacity             = var.db_min_capacity
  max_capacity             = var.db_max_capacity
  instance_count           = var.db_instance_count
  deletion_protection      = var.db_deletion_protection
  backup_retention_days    = var.db_backup_retention_days
}

# stream-api behind the HTTP API (its trigger: function.trigger=http-api).
module "http_api" {
  source = "./modules/http_api"

  name                   = var.name
  function_name          = module.function["stream-api"].function_name
  function_invoke_arn    = module.function["stream-api"].target_invoke_arn
  function_qualifier     = module.function["stream-api"].qualifier
  route_keys             = [for r in split(",", local.functions["stream-api"].properties["function.trigger.routes"]) : trimspace(r)]
  public_route_keys      = [for r in split(",", lookup(local.functions["stream-api"].properties, "function.trigger.public-routes", "")) : trimspace(r) if trimspace(r) != ""]
  jwt_issuer             = var.jwt_issuer
  jwt_audience           = var.jwt_audience
  log_retention_days     = var.log_retention_days
  throttling_burst_limit = var.api_throttling_burst_limit
  throttling_rate_limit  = var.api_throttling_rate_limit
}
