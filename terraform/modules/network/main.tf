data "aws_availability_zones" "available" {
  state = "available"
}

data "aws_region" "current" {}

locals {
  zones = slice(data.aws_availability_zones.available.names, 0, var.availability_zone_count)
}

resource "aws_vpc" "this" {
  cidr_block           = var.vpc_cidr
  enable_dns_support   = true
  enable_dns_hostnames = true
  tags                 = { Name = var.name }
}

resource "aws_subnet" "private" {
  count             = length(local.zones)
  vpc_id            = aws_vpc.this.id
  availability_zone = local.zones[count.index]
  cidr_block        = cidrsubnet(var.vpc_cidr, 4, count.index)
  tags              = { Name = "${var.name}-private-${local.zones[count.index]}" }
}

resource "aws_route_table" "private" {
  vpc_id = aws_vpc.this.id
  tags   = { Name = "${var.name}-private" }
}

resource "aws_route_table_association" "private" {
  count          = length(aws_subnet.private)
  subnet_id      = aws_subnet.private[count.index].id
  route_table_id = aws_route_table.private.id
}

# S3 traffic (the warehouse, the artifacts) never leaves the AWS network and costs no NAT data processing.
resource "aws_vpc_endpoint" "s3" {
  vpc_id            = aws_vpc.this.id
  service_name      = "com.amazonaws.${data.aws_region.current.name}.s3"
  vpc_endpoint_type = "Gateway"
  route_table_ids   = [aws_route_table.private.id]
  tags              = { Name = "${var.name}-s3" }
}

resource "aws_subnet" "public" {
  count                   = var.enable_nat_gateway ? 1 : 0
  vpc_id                  = aws_vpc.this.id
  availability_zone       = local.zones[0]
  cidr_block              = cidrsubnet(var.vpc_cidr, 4, 15)
  map_public_ip_on_launch = false
  tags                    = { Name = "${var.name}-public" }
}

resource "aws_internet_gateway" "this" {
  count  = var.enable_nat_gateway ? 1 : 0
  vpc_id = aws_vpc.this.id
  tags   = { Name = var.name }
}

resource "aws_route_table" "public" {
  count  = var.enable_nat_gateway ? 1 : 0
  vpc_id = aws_vpc.this.id
  tags   = { Name = "${var.name}-public" }
}

resource "aws_route" "public_internet" {
  count                  = var.enable_nat_gateway ? 1 : 0
  route_table_id         = aws_route_table.public[0].id
  destination_cidr_block = "0.0.0.0/0"
  gateway_id             = aws_internet_gateway.this[0].id
}

resource "aws_route_table_association" "public" {
  count          = var.enable_nat_gateway ? 1 : 0
  subnet_id      = aws_subnet.public[0].id
  route_table_id = aws_route_table.public[0].id
}

resource "aws_eip" "nat" {
  count  = var.enable_nat_gateway ? 1 : 0
  domain = "vpc"
  tags   = { Name = "${var.name}-nat" }
}

resource "aws_nat_gateway" "this" {
  count         = var.enable_nat_gateway ? 1 : 0
  allocation_id = aws_eip.nat[0].id
  subnet_id     = aws_subnet.public[0].id
  tags          = { Name = var.name }
  depends_on    = [aws_internet_gateway.this]
}

resource "aws_route" "private_nat" {
  count                  = var.enable_nat_gateway ? 1 : 0
  route_table_id         = aws_route_table.private.id
  destination_cidr_block = "0.0.0.0/0"
  nat_gateway_id         = aws_nat_gateway.this[0].id
}

# The functions, and the pollers of their Kafka event source mappings, share this group.
resource "aws_security_group" "functions" {
  name        = "${var.name}-functions"
  description = "Tributary Lambda functions and their Kafka event source mappings"
  vpc_id      = aws_vpc.this.id
}

resource "aws_vpc_security_group_egress_rule" "functions_https" {
  security_group_id = aws_security_group.functions.id
  description       = "AWS APIs, S3, schema registries"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
  cidr_ipv4         = "0.0.0.0/0"
}

resource "aws_vpc_security_group_egress_rule" "functions_kafka" {
  security_group_id = aws_security_group.functions.id
  description       = "Kafka brokers"
  ip_protocol       = "tcp"
  from_port         = var.kafka_ports.from
  to_port           = var.kafka_ports.to
  cidr_ipv4         = "0.0.0.0/0"
}

# Schema registries listen on ports of their own (Confluent Schema Registry: 8081); stream-api compiles a registry
# subject at create and ingest fetches the schemas of the ids its records carry. Without a rule, only registries on
# 443 were reachable and a stream of any other one could neither be created nor ingested.
resource "aws_vpc_security_group_egress_rule" "functions_schema_registry" {
  for_each = toset([for p in var.schema_registry_ports : tostring(p) if p != 443])

  security_group_id = aws_security_group.functions.id
  description       = "Schema registries"
  ip_protocol       = "tcp"
  from_port         = tonumber(each.value)
  to_port           = tonumber(each.value)
  cidr_ipv4         = "0.0.0.0/0"
}

# A self-managed Kafka event source mapping in a VPC needs its group to admit itself.
resource "aws_vpc_security_group_ingress_rule" "functions_self" {
  security_group_id            = aws_security_group.functions.id
  description                  = "Event source mapping pollers"
  ip_protocol                  = "tcp"
  from_port                    = var.kafka_ports.from
  to_port                      = var.kafka_ports.to
  referenced_security_group_id = aws_security_group.functions.id
}

resource "aws_security_group" "endpoints" {
  count       = length(var.interface_endpoints) > 0 ? 1 : 0
  name        = "${var.name}-endpoints"
  description = "Interface endpoints used by the Tributary functions"
  vpc_id      = aws_vpc.this.id
}

resource "aws_vpc_security_group_ingress_rule" "endpoints_from_functions" {
  count                        = length(var.interface_endpoints) > 0 ? 1 : 0
  security_group_id            = aws_security_group.endpoints[0].id
  description                  = "Tributary functions"
  ip_protocol                  = "tcp"
  from_port                    = 443
  to_port                      = 443
  referenced_security_group_id = aws_security_group.functions.id
}

resource "aws_vpc_endpoint" "interface" {
  for_each            = toset(var.interface_endpoints)
  vpc_id              = aws_vpc.this.id
  service_name        = "com.amazonaws.${data.aws_region.current.name}.${each.value}"
  vpc_endpoint_type   = "Interface"
  subnet_ids          = aws_subnet.private[*].id
  security_group_ids  = [aws_security_group.endpoints[0].id]
  private_dns_enabled = true
  tags                = { Name = "${var.name}-${each.value}" }
}
