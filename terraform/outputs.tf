output "api_url" {
  description = "Base URL of the Tributary REST API, e.g. <api_url>/api/2.0/feature-engineering/streams."
  value       = module.http_api.url
}

output "warehouse" {
  description = "TRIBUTARY_WAREHOUSE of this deployment."
  value       = local.common_environment.TRIBUTARY_WAREHOUSE
}

output "function_names" {
  description = "Lambda function of each function config."
  value       = { for name, fn in module.function : name => fn.function_name }
}

output "ingest_function_arn" {
  description = "ARN of the ingest function; stream-api points each stream's event source mappings at its aliases."
  value       = module.function["ingest"].arn
}

output "database_proxy_endpoint" {
  description = "RDS Proxy endpoint of the registry database."
  value       = module.database.proxy_endpoint
}

output "functions_security_group_id" {
  description = "Security group of the functions: Kafka clusters outside kafka_security_group_ids must admit it."
  value       = module.network.functions_security_group_id
}
